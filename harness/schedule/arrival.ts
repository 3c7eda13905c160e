/**
 * When work arrives (issue 31, item 2). A trainer does not hand a sandbox pool one job at a time:
 *   closed          each of the pool's workers takes the next job as soon as its previous one ends
 *                   (the rollout kind's loop before arrivals existed; a job "arrives" when taken)
 *   burst(N)        N jobs arrive at once; the next N arrive when the previous N have all ended
 *                   (a synchronous step: the trainer asks for the next batch once this one is back)
 *   staggered(Δ)    job i arrives at i·Δ
 *   poisson(λ)      exponential gaps of mean 1/λ seconds (λ jobs per second), from a seeded PRNG
 * The text form (`burst(64)`, `staggered(250ms)`, `poisson(8)`) is what a spec holds; the label
 * (`burst64`, `staggered250ms`, `poisson8`) is safe in trial ids, container and cgroup names.
 */
import { z } from 'zod';
import { createPrng } from '../plan/prng.ts';
import { parseDurationMs } from '../spec/units.ts';

export type Arrival =
  | { mode: 'closed' }
  | { mode: 'burst'; size: number }
  | { mode: 'staggered'; intervalMs: number }
  | { mode: 'poisson'; perSecond: number };

export const ARRIVAL_SYNTAX = 'closed, burst(N), staggered(<duration>) or poisson(<jobs per second>), e.g. "burst(64)", "staggered(250ms)", "poisson(8)"';

/** The text of a spec → an arrival, or the reason it is not one (the spec layer names the field). */
export function parseArrival(text: string): Arrival | { error: string } {
  const trimmed = text.trim();
  if (trimmed === 'closed') return { mode: 'closed' };
  const match = /^(burst|staggered|poisson)\(\s*([^)]*?)\s*\)$/.exec(trimmed);
  if (!match) return { error: `"${text}" is not an arrival mode: expected ${ARRIVAL_SYNTAX}` };
  const [, mode, argument] = match as unknown as [string, 'burst' | 'staggered' | 'poisson', string];
  if (mode === 'burst') {
    const size = Number(argument);
    return Number.isInteger(size) && size > 0 ? { mode, size } : { error: `burst(${argument}): N must be a positive whole number of jobs` };
  }
  if (mode === 'staggered') {
    const intervalMs = parseDurationMs(argument);
    return intervalMs !== null ? { mode, intervalMs } : { error: `staggered(${argument}): Δ must be a positive duration such as "250ms" or "1s"` };
  }
  const perSecond = Number(argument.replace(/\/s$/, ''));
  return Number.isFinite(perSecond) && perSecond > 0 ? { mode, perSecond } : { error: `poisson(${argument}): λ must be a positive rate in jobs per second, e.g. poisson(8)` };
}

/** Strict parse, for text a spec already validated. */
export function arrivalOf(text: string): Arrival {
  const parsed = parseArrival(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

/** A spec field holding one arrival's text (kept as text: it is also what resolved-spec.json shows). */
export const ArrivalTextSchema = z.string().superRefine((text, ctx) => {
  const parsed = parseArrival(text);
  if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
});

/** The spec's text form. */
export function arrivalToText(arrival: Arrival): string {
  switch (arrival.mode) {
    case 'closed':
      return 'closed';
    case 'burst':
      return `burst(${arrival.size})`;
    case 'staggered':
      return `staggered(${arrival.intervalMs}ms)`;
    case 'poisson':
      return `poisson(${arrival.perSecond})`;
  }
}

/** A name safe in trial ids, container names and cgroup names: closed, burst64, staggered250ms, poisson8. */
export function arrivalLabel(arrival: Arrival): string {
  switch (arrival.mode) {
    case 'closed':
      return 'closed';
    case 'burst':
      return `burst${arrival.size}`;
    case 'staggered':
      return `staggered${arrival.intervalMs}ms`;
    case 'poisson':
      return `poisson${arrival.perSecond}`;
  }
}

/**
 * Arrival offsets (ms from the schedule's start) of `count` jobs for the modes that fix them in
 * advance; null for closed (a job arrives when a worker takes it) and burst (when the previous
 * burst ends). The first job arrives at 0 in both. Poisson draws from `seed` (callers derive it from the run seed and the cell, so a
 * rerun of the spec replays the same arrivals).
 */
export function fixedArrivalOffsetsMs(arrival: Arrival, count: number, seed: number): number[] | null {
  if (arrival.mode === 'staggered') return Array.from({ length: count }, (_, i) => i * arrival.intervalMs);
  if (arrival.mode !== 'poisson') return null;
  const prng = createPrng(seed);
  const offsets: number[] = [];
  let t = 0;
  for (let i = 0; i < count; i++) {
    offsets.push(t);
    // inverse CDF of Exp(λ); float() is in [0, 1), so 1 − u is never 0
    t += (-Math.log(1 - prng.float()) / arrival.perSecond) * 1000;
  }
  return offsets;
}
