/**
 * Turns on the event loop (harness/schedule/loop-turns.ts): a wave of synchronous steps must leave
 * the loop's timers room to run between slices, keep its callers in arrival order, and cost an
 * idle loop no hop at all.
 */
import { describe, expect, it } from 'vitest';
import { LoopTurns } from '../../../harness/schedule/index.ts';

/** Occupy the thread for `ms`, as a synchronous step of a rollout does. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('LoopTurns', () => {
  it('grants a turn on an idle loop before anything queued for the next iteration', async () => {
    const turns = new LoopTurns(4);
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    await turns.take();
    expect(immediateRan).toBe(false);
    expect(turns.queued).toBe(0);
  });

  it('lets a timer run between the slices of a wave that would otherwise hold the loop', async () => {
    const turns = new LoopTurns(4);
    let ticks = 0;
    let waveDone = false;
    const timer = setInterval(() => {
      if (!waveDone) ticks++;
    }, 1);
    // 120 steps of 1 ms released together: without turns they run back to back and the timer waits 120 ms.
    await Promise.all(Array.from({ length: 120 }, async () => {
      await turns.take();
      busy(1);
    }));
    waveDone = true;
    clearInterval(timer);
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it('serves the callers of a wave in the order they asked', async () => {
    const turns = new LoopTurns(1);
    const order: number[] = [];
    await Promise.all(Array.from({ length: 40 }, async (_, index) => {
      await turns.take();
      order.push(index);
      busy(0.5);
    }));
    expect(order).toEqual(Array.from({ length: 40 }, (_, index) => index));
  });
});
