/**
 * The stand-in trainer of an async RL loop (issue 31, item 3). It consumes full batches — every
 * attempt of step t ended — in step order, spends `train_ms` on each, and then publishes policy
 * version t + 1. Rollouts of step t may start once the published version is at least t − s (s = the
 * staleness bound): s = 0 is the synchronous loop (step t waits for the trainer to finish t − 1);
 * s ≥ 1 lets step t's rollouts start while step t − 1 is still rolling out or training.
 * Per step it records how long the trainer waited for the batch (idle time the rollouts cost the
 * trainer) and the staleness of the batch it received: t − the version published when the step's
 * first attempt started (always within [0, s]).
 */

export interface TrainerStepFigures {
  step: number;
  /** Trainer idle: ready for batch t (previous training done) → batch t complete. */
  waitMs: number;
  /** t − the policy version at the batch's first start. */
  staleness: number;
  /** When the trainer started training on it, and finished (ms from the loop's start). */
  trainStartMs: number;
  trainEndMs: number;
}

export interface TrainerClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const hrMs = () => Number(process.hrtime.bigint()) / 1e6;
export const REAL_CLOCK: TrainerClock = { now: hrMs, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

export class StepTrainer {
  private version = 0;
  private readonly versionAtStart = new Map<number, number>();
  private readonly batchDone = new Map<number, () => void>();
  private readonly batchPromises = new Map<number, Promise<void>>();
  private waiters: { step: number; resolve: () => void }[] = [];
  private readonly origin: number;
  private aborted = false;
  readonly figures: TrainerStepFigures[] = [];

  constructor(
    private readonly steps: number,
    private readonly trainMs: number,
    private readonly staleness: number,
    private readonly clock: TrainerClock = REAL_CLOCK,
  ) {
    this.origin = clock.now();
    for (let step = 0; step < steps; step++) this.batchPromises.set(step, new Promise((resolve) => this.batchDone.set(step, resolve)));
  }

  /** Whether step t's rollouts may start now. */
  admits(step: number): boolean {
    return this.version >= step - this.staleness;
  }

  /** Resolves when step t's rollouts may start. */
  async admitted(step: number): Promise<void> {
    if (this.admits(step)) return;
    await new Promise<void>((resolve) => this.waiters.push({ step, resolve }));
  }

  /** The step's first attempt starts: the version its rollouts act on (kept for the first call only). */
  startedStep(step: number): void {
    if (!this.versionAtStart.has(step)) this.versionAtStart.set(step, this.version);
  }

  /** Every attempt of step t ended: the batch is full. */
  completeStep(step: number): void {
    this.batchDone.get(step)?.();
  }

  /** Consume every batch in order; resolves after the last one is trained. */
  async run(): Promise<TrainerStepFigures[]> {
    for (let step = 0; step < this.steps; step++) {
      const ready = this.clock.now();
      await this.batchPromises.get(step);
      if (this.aborted) break;
      const received = this.clock.now();
      await this.clock.sleep(this.trainMs);
      const trained = this.clock.now();
      this.figures.push({ step, waitMs: received - ready, staleness: step - (this.versionAtStart.get(step) ?? step), trainStartMs: received - this.origin, trainEndMs: trained - this.origin });
      this.publish(step + 1);
    }
    return this.figures;
  }

  /** Release every waiter and the trainer itself (an interrupted cell run must not leave a worker parked). */
  abort(): void {
    this.aborted = true;
    for (const done of this.batchDone.values()) done();
    this.publish(Number.POSITIVE_INFINITY);
  }

  private publish(version: number): void {
    this.version = version;
    const released = this.waiters.filter((waiter) => this.admits(waiter.step));
    this.waiters = this.waiters.filter((waiter) => !this.admits(waiter.step));
    for (const waiter of released) waiter.resolve();
  }
}
