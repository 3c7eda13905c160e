/**
 * Per-step figures, PURE (attempt spans → numbers). A step waits for its slowest attempt, so:
 *   step_ms                 the step's first attempt start → its last attempt end (every attempt: a
 *                           failed one holds the step up too);
 *   group_straggler_ratio   per group (task), its slowest valid attempt's wall ÷ the group's median
 *                           valid wall; the step's value is its worst group (the one the step waited on);
 *   start_ms (per attempt)  prepare + ready: attempt start → the agent's first model request, i.e.
 *                           what the prefix strategy changes (staging and the sandbox start).
 * Valid = scored with no failure category; invalid attempts never enter a timing statistic but stay
 * in the step's counts.
 */
import { median } from '../../harness/stats/index.ts';

export interface StepSpan {
  step: number;
  slot: number;
  startMs: number;
  endMs: number;
  wallMs: number;
  valid: boolean;
}

export interface StepFigures {
  step: number;
  stepMs: number;
  /** null when no group has two valid attempts. */
  groupStragglerRatio: number | null;
  attempts: number;
  valid: number;
}

export function groupStraggler(walls: readonly number[]): number | null {
  if (walls.length < 2) return null;
  const middle = median(walls);
  return middle > 0 ? Math.max(...walls) / middle : null;
}

export function stepFigures(spans: readonly StepSpan[]): StepFigures[] {
  const steps = [...new Set(spans.map((span) => span.step))].sort((a, b) => a - b);
  return steps.map((step) => {
    const mine = spans.filter((span) => span.step === step);
    const slots = [...new Set(mine.map((span) => span.slot))];
    const ratios = slots.map((slot) => groupStraggler(mine.filter((span) => span.slot === slot && span.valid).map((span) => span.wallMs))).filter((r): r is number => r !== null);
    return {
      step,
      stepMs: Math.max(...mine.map((span) => span.endMs)) - Math.min(...mine.map((span) => span.startMs)),
      groupStragglerRatio: ratios.length > 0 ? Math.max(...ratios) : null,
      attempts: mine.length,
      valid: mine.filter((span) => span.valid).length,
    };
  });
}
