/**
 * Input bounds that fail fast. A plan is materialized (one object per planned trial) and a run
 * spawns `concurrency` sandboxes at once, so a spec with `trials: 1e12` would fill memory before
 * anything could say why. The loader calls `checkPlanBounds` on every parsed spec (and again after
 * command-line overrides), before any plan exists: each size is computed from counts alone, by
 * multiplication, never by building what it counts.
 *
 * The generic sizes (trials and warmups × arms, resamples) are known here; a kind whose plan expands
 * its own fields (density batches × cells, rollout attempts, replay trajectories, ...) declares them
 * with `expansion` on its spec section (harness/spec/kind-spec.ts), so this module never reads a
 * kind's section. A spec raises a limit explicitly with `limits:` (LimitsSchema).
 */
import { z } from 'zod';
import { UserError } from '../errors.ts';

/**
 * Default limits: far above every shipped spec (the largest plans a few thousand trials; density
 * goes to N = 32 per batch; the study bootstraps 5,000 resamples), far below what hangs the machine
 * (a million planned trials is about 0.5 GB of plan objects and journal lines).
 */
export const DEFAULT_LIMITS = {
  /** Journal lines a plan schedules (warmups included). */
  planned_trials: 100_000,
  /** Sandboxes one batch or cell runs at once. */
  concurrency: 1_024,
  /** Bootstrap resamples per interval. */
  resamples: 100_000,
} as const;

export type LimitName = keyof typeof DEFAULT_LIMITS;

/** The spec's optional `limits:` section: raise (or lower) a default on purpose. */
export const LimitsSchema = z
  .object({
    planned_trials: z.number().int().positive().optional(),
    concurrency: z.number().int().positive().optional(),
    resamples: z.number().int().positive().optional(),
  })
  .strict();

export type SpecLimits = z.output<typeof LimitsSchema>;

/** One factor of a size: the spec field that drives it and its value there. */
export interface ExpansionFactor {
  /** Dotted spec path, e.g. `trials`, `density.batches`, `arms` (a list's length). */
  readonly field: string;
  readonly value: number;
}

/** One size a spec expands to: the product of its factors, checked against one limit. */
export interface PlanExpansion {
  /** What the size counts, e.g. "planned trials". */
  readonly what: string;
  readonly factors: readonly ExpansionFactor[];
  readonly limit: LimitName;
}

export function expansionSize(expansion: PlanExpansion): number {
  return expansion.factors.reduce((product, factor) => product * factor.value, 1);
}

/** The generic sizes every kind shares (a kind's own plan may expand further; it says so itself). */
export function genericExpansions(spec: { arms: readonly unknown[]; trials: number; warmups: number; resamples: number }): PlanExpansion[] {
  const arms = { field: 'arms', value: spec.arms.length };
  return [
    { what: 'planned trials', factors: [{ field: 'trials', value: spec.trials }, arms], limit: 'planned_trials' },
    { what: 'planned warmup trials', factors: [{ field: 'warmups', value: spec.warmups }, arms], limit: 'planned_trials' },
    { what: 'bootstrap resamples per interval', factors: [{ field: 'resamples', value: spec.resamples }], limit: 'resamples' },
  ];
}

/** A count as people read it: 100,000 below a billion, then 1.0e+12 (never a 13-digit number to count). */
function formatCount(value: number): string {
  return value < 1e9 ? value.toLocaleString('en-US') : value.toExponential(1);
}

/** Every expansion over its limit, one line each: `file: field: ... (limit; how to raise it)`. */
export function planBoundIssues(file: string, expansions: readonly PlanExpansion[], limits: SpecLimits | undefined): string[] {
  return expansions.flatMap((expansion) => {
    const limit = limits?.[expansion.limit] ?? DEFAULT_LIMITS[expansion.limit];
    const size = expansionSize(expansion);
    if (size <= limit) return [];
    // Name the largest factor first: it is the one most likely mistyped.
    const named = [...expansion.factors].sort((a, b) => b.value - a.value);
    const product = named.length > 1 ? ` (${named.map((f) => `${f.field} ${formatCount(f.value)}`).join(' × ')})` : '';
    return [
      `${file}: ${named[0]!.field}: expands to ${formatCount(size)} ${expansion.what}${product}, over the limit of ${formatCount(limit)} (limits.${expansion.limit}); lower it, or raise the limit on purpose with \`limits: { ${expansion.limit}: N }\` in the spec`,
    ];
  });
}

/** Refuse (exit 2) a spec whose plan would expand past a limit. */
export function checkPlanBounds(file: string, expansions: readonly PlanExpansion[], limits: SpecLimits | undefined): void {
  const issues = planBoundIssues(file, expansions, limits);
  if (issues.length > 0) throw new UserError(issues.join('\n'));
}
