import { setTimeout as sleep } from 'node:timers/promises';

/**
 * dockerd uploads a checkpoint into containerd's content store, keyed by its digest, before CRIU
 * restores anything. Two uploads of identical content at the same moment lose a commit race, and
 * the loser's start is refused with "content sha256:… already exists"; its container stays created.
 * The docker mechanism queues its own children's starts, but a start by another process on the
 * shared harness dockerd (another run, another test file) cannot be queued from here. So a start
 * refused this way is made again after a pause. Pauses, not immediate retries: at K = 4 unqueued
 * siblings (2026-12-01) immediate retries met the same race again.
 */
const CONTENT_RACE = /content sha256:[0-9a-f]+[^|]*already exists/;

/**
 * Pauses before each retry; the last refusal after them is the caller's error. Four unqueued starts
 * of one checkpoint at once (2026-12-03) needed 0 to 3 retries; across processes two at once is usual.
 */
export const CONTENT_RACE_PAUSES_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000, 8_000];

export function isContentRace(error: unknown): boolean {
  return CONTENT_RACE.test(error instanceof Error ? error.message : String(error));
}

export interface ContentRaceOutcome<T> {
  value: T;
  /** Refused starts before the one that succeeded. */
  retries: number;
  /** Time spent on refused starts and pauses: contention, not restore. */
  lostNs: bigint;
}

/** Runs `start`, and runs it again after each pause while it is refused by the content race alone. */
export async function retryContentRace<T>(
  start: () => Promise<T>,
  pausesMs: readonly number[] = CONTENT_RACE_PAUSES_MS,
): Promise<ContentRaceOutcome<T>> {
  const began = process.hrtime.bigint();
  for (let retries = 0; ; retries++) {
    const tryBegan = process.hrtime.bigint();
    try {
      return { value: await start(), retries, lostNs: tryBegan - began };
    } catch (error) {
      if (!isContentRace(error) || retries >= pausesMs.length) throw error;
      await sleep(pausesMs[retries]!);
    }
  }
}
