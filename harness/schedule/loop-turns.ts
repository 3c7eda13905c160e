/**
 * Turns on the event loop for work that arrives in waves.
 *
 * When hundreds of rollouts reach the same step at once, Node runs every one's synchronous
 * continuation back to back in one loop iteration. This happens when a burst of attempts is
 * admitted, or when sandboxes that started together exit together (timers due in the same tick,
 * a batch of thread-pool completions). The continuations include cgroup files, trajectory parse,
 * candidate hashing and scoring set-up. Everything else on the loop waits behind them: launcher
 * events, timers, the next attempt's requests. With a thousand rollouts in flight that was a 0.5 s
 * stall. The stamps the harness takes itself (staged, scored, end) absorbed it; the launcher's
 * stamps of spawns, output lines and exits are taken in the launcher and did not.
 *
 * A caller takes a turn before such a step. Turns run while the current slice of the loop is
 * shorter than `sliceMs`. After that the rest wait, in arrival order, for a later iteration
 * (setImmediate), so timers and I/O run in between. Nothing is skipped or reordered within one
 * caller, and an idle loop grants a turn at once, without a hop.
 */
import { performance } from 'node:perf_hooks';

export class LoopTurns {
  private readonly waiting: (() => void)[] = [];
  private sliceStart = 0;
  private sliceOpen = false;
  /** A chain of releases is running (or waits for the next iteration): new callers queue behind it. */
  private releasing = false;

  constructor(readonly sliceMs: number) {}

  /** Resolves when the caller may run its next synchronous step. */
  take(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (this.releasing) return;
      this.releasing = true;
      // Started as a microtask, not here: the caller has not awaited the promise yet, and its step
      // must run before the next caller is released.
      queueMicrotask(() => this.releaseNext());
    });
  }

  /** Callers waiting for their turn (for tests and diagnostics). */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * One caller at a time: the released caller's step runs as a microtask ahead of the release
   * queued behind it, so each release sees how long the steps before it took.
   */
  private releaseNext(): void {
    if (this.waiting.length === 0) {
      this.releasing = false;
      return;
    }
    if (!this.withinSlice()) {
      setImmediate(() => {
        this.sliceOpen = false;
        this.releaseNext();
      });
      return;
    }
    this.waiting.shift()!();
    queueMicrotask(() => this.releaseNext());
  }

  /** Opens a slice at the first turn of an iteration; the slice closes at that iteration's check phase. */
  private withinSlice(): boolean {
    const now = performance.now();
    if (!this.sliceOpen) {
      this.sliceOpen = true;
      this.sliceStart = now;
      setImmediate(() => {
        this.sliceOpen = false;
      });
      return true;
    }
    return now - this.sliceStart < this.sliceMs;
  }
}

/** The process's one event loop has one set of turns: every cell and attempt shares it. */
export const loopTurns = new LoopTurns(4);
