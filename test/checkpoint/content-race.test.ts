/**
 * The docker mechanism's retry of a `start --checkpoint` that lost containerd's content commit race
 * to another process: only that refusal is retried, after each pause, and the time lost is returned
 * so the restore figure leaves it out. The refusal text is dockerd's, as a CI run met it (2026-12-03).
 */
import { describe, expect, it } from 'vitest';
import { isContentRace, retryContentRace } from '../../executors/checkpoint/content-race.ts';

const REFUSAL = 'docker start --checkpoint failed: Error response from daemon: failed to upload checkpoint to containerd: commit failed: content sha256:9f2c4be0d1a7e3c85b6f0a4d2e1c7b3a9f8e6d5c4b3a2f1e0d9c8b7a6f5e4d3c: already exists';

/** A start refused `refusals` times, then answering; counts its calls. */
function startRefused(refusals: number, error = REFUSAL) {
  const calls = { n: 0 };
  const start = async () => {
    calls.n += 1;
    if (calls.n <= refusals) throw new Error(error);
    return 'container-id';
  };
  return { start, calls };
}

describe('retryContentRace', () => {
  it('recognizes the refusal, and no other error', () => {
    expect(isContentRace(new Error(REFUSAL))).toBe(true);
    expect(isContentRace(new Error('docker start --checkpoint failed: container sb-x already exists'))).toBe(false);
    expect(isContentRace(new Error('docker start --checkpoint failed: content sha256:ab | already exists'))).toBe(false);
  });

  it('makes a refused start again after a pause, and says how many and how long', async () => {
    const { start, calls } = startRefused(2);
    const outcome = await retryContentRace(start, [20, 20, 20]);
    expect(outcome.value).toBe('container-id');
    expect(outcome.retries).toBe(2);
    expect(calls.n).toBe(3);
    expect(Number(outcome.lostNs) / 1e6).toBeGreaterThanOrEqual(39);
  });

  it('loses nothing when the first start succeeds', async () => {
    const outcome = await retryContentRace(startRefused(0).start, [20]);
    expect(outcome.retries).toBe(0);
    expect(Number(outcome.lostNs) / 1e6).toBeLessThan(5);
  });

  it('throws any other error at once', async () => {
    const { start, calls } = startRefused(1, 'docker start --checkpoint failed: criu failed: type RESTORE errno 0');
    await expect(retryContentRace(start, [1, 1])).rejects.toThrow(/criu failed/);
    expect(calls.n).toBe(1);
  });

  it('throws the last refusal once the pauses are spent', async () => {
    const { start, calls } = startRefused(5);
    await expect(retryContentRace(start, [1, 1])).rejects.toThrow(/already exists/);
    expect(calls.n).toBe(3);
  });
});
