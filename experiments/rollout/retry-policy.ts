/**
 * Retries of infrastructure failures (issue 31, item 4): a trainer re-runs an attempt whose sandbox,
 * model service or recording failed, up to `max` more tries with exponential backoff. The sampling
 * stays fixed: every try of an attempt is the same task, the same scripted path and the same seed,
 * so a retry re-draws the infrastructure, never the sample. A task failure (the agent's own) is the
 * sample's content and is never retried; neither is a failure a retry cannot cure (a touched
 * baseline, a task proved unsolvable, an OOM under the same budget, the harness's own error, an
 * interruption).
 */
import { z } from 'zod';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';

/** Infrastructure failures a fresh try can cure: each is the substrate's or the service's, not the task's. */
export const RETRIABLE_CATEGORIES: readonly FailureCategory[] = ['setup_failed', 'upstream_failed', 'killed_externally', 'recording_failed', 'timeout'];

export const RetriesSchema = z
  .object({
    /** Tries after the first (R): 0 = no retry. */
    max: z.number().int().min(0).max(10).default(0),
    /** Wait before retry r: backoff_ms × 2^(r−1) (the worker holds its slot while it waits; counted as retry cost). */
    backoff_ms: z.number().nonnegative().max(600_000).default(0),
  })
  .strict();
export type RetryPolicy = z.output<typeof RetriesSchema>;

export const NO_RETRIES: RetryPolicy = { max: 0, backoff_ms: 0 };

export function isRetriable(category: FailureCategory | null): boolean {
  return category !== null && RETRIABLE_CATEGORIES.includes(category);
}

/** The wait before try `tryIndex` (1-based retries; try 0 never waits). */
export function backoffMs(policy: RetryPolicy, tryIndex: number): number {
  return tryIndex === 0 ? 0 : policy.backoff_ms * 2 ** (tryIndex - 1);
}

export interface TriedAttempt<T> {
  /** Every try in order; the last is the attempt's outcome. */
  tries: T[];
  /** The backoff waited before each try (0 for the first). */
  backoffs: number[];
}

export interface RetryHooks<T> {
  /** The category that decides a retry (null = success). */
  categoryOf(outcome: T): FailureCategory | null;
  /** True once the run is stopping: no further try starts. */
  stopped?(): boolean;
  sleep?(ms: number): Promise<void>;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Run `tryOnce(0)`, then retry while the last try failed retriably and the policy allows. */
export async function runWithRetries<T>(policy: RetryPolicy, tryOnce: (tryIndex: number) => Promise<T>, hooks: RetryHooks<T>): Promise<TriedAttempt<T>> {
  const tries: T[] = [];
  const backoffs: number[] = [];
  for (let tryIndex = 0; tryIndex <= policy.max; tryIndex++) {
    const wait = backoffMs(policy, tryIndex);
    if (tryIndex > 0) {
      if (hooks.stopped?.()) break;
      if (wait > 0) await (hooks.sleep ?? sleepFor)(wait);
    }
    backoffs.push(wait);
    const outcome = await tryOnce(tryIndex);
    tries.push(outcome);
    if (!isRetriable(hooks.categoryOf(outcome))) break;
  }
  return { tries, backoffs };
}

/** The model route's attempt id of one try: the first try keeps the attempt's own id (older bundles read the same). */
export function tryRouteId(attemptId: string, tryIndex: number): string {
  return tryIndex === 0 ? attemptId : `${attemptId}-r${tryIndex}`;
}
