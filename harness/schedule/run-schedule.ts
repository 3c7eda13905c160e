/**
 * Runs `jobs` jobs on a pool of `workers` under an arrival mode and an admission cap, and records
 * each job's schedule: when it arrived, when a worker took it, when it was admitted past the start
 * cap, when its start ended, when it ended. What a "start" is belongs to the caller: the job calls
 * `started()` once its sandbox is up (or `startFailed()`), which frees its admission slot; a job that
 * says neither frees it when it returns, with no start stamp.
 *
 *   arrival ── pool wait ──► taken by a worker ── admission wait ──► admitted ── start ──► started … end
 *
 * In the closed loop a job arrives when a worker takes it (pool wait 0). Jobs must not throw (a
 * failure is the caller's outcome to record); one that does stops the schedule: no further job is
 * taken, the jobs in flight end, and the first error is rethrown.
 */
import { AdmissionGate, type Occupancy } from './admission.ts';
import { fixedArrivalOffsetsMs, type Arrival } from './arrival.ts';

export interface StartSignal {
  /** Index of the worker running the job (0 … workers − 1). */
  readonly worker: number;
  /** The job's start is over: frees its admission slot. tNs: when it happened (default now), e.g. an output line's stamp. */
  started(tNs?: bigint): void;
  /** The start failed: frees the slot without a start stamp. */
  startFailed(): void;
}

export interface JobTiming {
  job: number;
  worker: number;
  /** process.hrtime.bigint() stamps. */
  arrivalNs: bigint;
  takenNs: bigint;
  admittedNs: bigint;
  startedNs: bigint | null;
  endNs: bigint;
  /** arrival → taken by a worker (0 in the closed loop). */
  poolWaitMs: number;
  /** taken → admitted past the start cap. */
  admissionWaitMs: number;
  /** admitted → started; null when the start failed or was never reported. */
  startLatencyMs: number | null;
  /** No start was reported: the job called startFailed(), or returned without calling started(). */
  startFailed: boolean;
}

export interface ScheduledJob<T> {
  value: T;
  timing: JobTiming;
}

export interface ScheduleOptions<T> {
  jobs: number;
  arrival: Arrival;
  /** The pool: most jobs in flight at once (a closed loop's C). */
  workers: number;
  /** Most jobs in their start phase at once; null: no cap. */
  admissionCap: number | null;
  /** Seed of a poisson arrival's draws (derive it from the run seed). */
  seed: number;
  /** Asked before a worker takes a job: false stops the schedule (jobs in flight still end). */
  keepGoing?(): boolean;
  run(job: number, signal: StartSignal): Promise<T>;
}

export interface ScheduleResult<T> {
  /** The jobs that ran, in the order they ended (a stopped schedule leaves some out). */
  jobs: ScheduledJob<T>[];
  tStartNs: bigint;
  tEndNs: bigint;
  /** Starts in flight over the schedule (the admission gate's record). */
  starts: Occupancy;
}

const now = () => process.hrtime.bigint();
const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

interface Arrived {
  job: number;
  arrivalNs: bigint;
}

/** The arrivals as a queue workers take from; resolves null once no job is left to arrive. */
class ArrivalQueue {
  private readonly queue: Arrived[] = [];
  private readonly waiters: (() => void)[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private released = 0;
  private nextClosed = 0;
  private stopped = false;
  private readonly endedPerBurst = new Map<number, number>();

  constructor(
    private readonly arrival: Arrival,
    private readonly jobs: number,
    seed: number,
    tStartNs: bigint,
  ) {
    const offsets = fixedArrivalOffsetsMs(arrival, jobs, seed);
    if (offsets) {
      for (const [job, offset] of offsets.entries()) {
        this.timers.push(setTimeout(() => this.push(job), Math.max(0, offset - msBetween(tStartNs, now()))));
      }
    } else if (arrival.mode === 'burst') {
      this.releaseBurst(0);
    }
  }

  async take(): Promise<Arrived | null> {
    for (;;) {
      if (this.stopped) return null;
      if (this.arrival.mode === 'closed') return this.nextClosed < this.jobs ? { job: this.nextClosed++, arrivalNs: now() } : null;
      const head = this.queue.shift();
      if (head) return head;
      if (this.released >= this.jobs) return null;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** A burst's next N arrive once all of this one's have ended. */
  ended(job: number): void {
    if (this.arrival.mode !== 'burst') return;
    const burst = Math.floor(job / this.arrival.size);
    const ended = (this.endedPerBurst.get(burst) ?? 0) + 1;
    this.endedPerBurst.set(burst, ended);
    if (ended === Math.min(this.arrival.size, this.jobs - burst * this.arrival.size)) this.releaseBurst(burst + 1);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.wake();
  }

  private releaseBurst(burst: number): void {
    if (this.arrival.mode !== 'burst') return;
    const first = burst * this.arrival.size;
    for (let job = first; job < Math.min(this.jobs, first + this.arrival.size); job++) this.push(job);
  }

  private push(job: number): void {
    this.queue.push({ job, arrivalNs: now() });
    this.released++;
    this.wake();
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}

export async function runSchedule<T>(options: ScheduleOptions<T>): Promise<ScheduleResult<T>> {
  if (!(Number.isInteger(options.workers) && options.workers > 0)) throw new Error(`runSchedule: workers ${options.workers}: expected a positive whole number`);
  const gate = new AdmissionGate(options.admissionCap);
  const tStartNs = now();
  const arrivals = new ArrivalQueue(options.arrival, options.jobs, options.seed, tStartNs);
  const done: ScheduledJob<T>[] = [];
  let failure: { error: unknown } | null = null;

  const runOne = async (worker: number, arrived: Arrived): Promise<void> => {
    const takenNs = now();
    const ticket = await gate.admit();
    const start: { ns: bigint | null; failed: boolean } = { ns: null, failed: false };
    const signal: StartSignal = {
      worker,
      started: (tNs) => {
        if (start.ns !== null || start.failed) return;
        // a stamp from before admission (a replayed line) would make a negative latency: never earlier than admitted
        start.ns = tNs === undefined ? now() : tNs > ticket.admittedNs ? tNs : ticket.admittedNs;
        ticket.release();
      },
      startFailed: () => {
        if (start.ns !== null) return;
        start.failed = true;
        ticket.release();
      },
    };
    try {
      const value = await options.run(arrived.job, signal);
      const endNs = now();
      done.push({
        value,
        timing: {
          job: arrived.job, worker, arrivalNs: arrived.arrivalNs, takenNs, admittedNs: ticket.admittedNs, startedNs: start.ns, endNs,
          poolWaitMs: msBetween(arrived.arrivalNs, takenNs),
          admissionWaitMs: ticket.waitMs,
          startLatencyMs: start.ns === null ? null : msBetween(ticket.admittedNs, start.ns),
          startFailed: start.ns === null,
        },
      });
    } finally {
      ticket.release();
      arrivals.ended(arrived.job);
    }
  };

  const worker = async (index: number): Promise<void> => {
    for (;;) {
      if (failure || (options.keepGoing && !options.keepGoing())) {
        arrivals.stop();
        return;
      }
      const arrived = await arrivals.take();
      if (!arrived) return;
      try {
        await runOne(index, arrived);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, (_, index) => worker(index)));
  const tEndNs = now();
  arrivals.stop();
  if (failure) throw (failure as { error: unknown }).error;
  return { jobs: done, tStartNs, tEndNs, starts: gate.occupancy(tEndNs) };
}
