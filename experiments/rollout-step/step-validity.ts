/**
 * Valid samples and retries per rollout-step cell (issue 31, item 4), PURE. The figures are the
 * rollout kind's (sample-cost.ts summarizeCosts: valid-sample rate with Wilson's interval, retries,
 * their worker time and CPU, reward dedup, CPU per valid sample), computed over the step's cells, so
 * a step bundle's rollout-cost.csv reads as a rollout bundle's. Added here: the interval
 * rollout-cost.csv leaves out, retries per valid sample, by a percentile bootstrap over attempts
 * (each attempt with all its tries; a ratio of sums; seeded, so reruns give the same interval).
 * Cells that never ran (a prefix not applicable on the backend) have no cost and are left out.
 */
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { createPrng, seedFromString } from '../../harness/plan/prng.ts';
import { quantile } from '../../harness/stats/index.ts';
import { summarizeCosts, type CellCost } from '../rollout/sample-cost.ts';

export interface StepValidity {
  cost: CellCost;
  /** Retries per valid sample, 95% percentile bootstrap over attempts; null below 2 attempts or when no resample has a valid one. */
  retriesPerValidCi: { low: number; high: number } | null;
}

interface AttemptTally {
  retries: number;
  valid: boolean;
}

const ratio = (sample: readonly AttemptTally[]): number | null => {
  const valid = sample.filter((a) => a.valid).length;
  return valid === 0 ? null : sample.reduce((sum, a) => sum + a.retries, 0) / valid;
};

/** Σ retries ÷ valid samples over attempts drawn with replacement; a resample without a valid sample has no ratio and is skipped. */
export function retriesPerValidInterval(attempts: readonly AttemptTally[], resamples: number, seedId: string): { low: number; high: number } | null {
  if (attempts.length < 2 || ratio(attempts) === null) return null;
  const prng = createPrng(seedFromString(seedId));
  const draws: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const drawn = ratio(Array.from({ length: attempts.length }, () => attempts[prng.int(0, attempts.length - 1)]!));
    if (drawn !== null) draws.push(drawn);
  }
  return draws.length === 0 ? null : { low: quantile(draws, 0.025), high: quantile(draws, 0.975) };
}

/** The spec controls summarizeCosts prints beside each cell (the rollout_step section's retries, faults, dedup, rate card). */
export type CostControls = Parameters<typeof summarizeCosts>[1];

/** Per cell that ran: its rollout-cost figures and the retries-per-valid interval. */
export function stepValidity(records: readonly TrialRecord[], controls: CostControls, resamples: number, runId: string): Map<string, StepValidity> {
  const ran = records.filter((r) => r.facts.prefix_unavailable === undefined);
  const costs = summarizeCosts(ran, controls, resamples, runId);
  return new Map(
    costs.map((cost) => {
      const mine = ran.filter((r) => !r.warmup && String(r.facts.cell ?? r.trial_id) === cost.cell);
      const tallies = mine.map((r) => ({ retries: r.metrics.retries ?? 0, valid: r.outcome === 'ok' }));
      return [cost.cell, { cost, retriesPerValidCi: retriesPerValidInterval(tallies, resamples, `${runId}:retries-per-valid:${cost.cell}`) }];
    }),
  );
}
