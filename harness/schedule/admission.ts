/**
 * Admission: a cap on jobs in their start phase at once (issue 31, item 2). Hosted providers
 * throttle sandbox creates, and verl's uni-agent campaign only stopped losing sandboxes stuck in
 * STARTING once a fleet-wide cap of 128 in-flight starts was added: the cap holds back starts, not
 * running jobs. A job asks for admission before its start, and frees the slot once started (or once
 * its start failed); waiters are admitted first come, first served. Every ticket records how long it
 * waited, and the gate records how many starts were in flight over time (peak and time-weighted mean),
 * so throughput can be set against in-flight starts.
 */
import { z } from 'zod';

/** A spec's cap: a positive number of in-flight starts, or `none`. */
export const AdmissionCapSchema = z.union([z.number().int().positive(), z.literal('none')]);
export type AdmissionCapText = z.output<typeof AdmissionCapSchema>;

/** The spec's value → the gate's cap (null: no cap). */
export function capOf(value: AdmissionCapText): number | null {
  return value === 'none' ? null : value;
}

/** cap8, capnone: safe in trial ids and container names. */
export function capLabel(cap: number | null): string {
  return `cap${cap ?? 'none'}`;
}

export interface AdmissionTicket {
  /** process.hrtime.bigint() when the job asked, and when it was admitted. */
  readonly requestedNs: bigint;
  readonly admittedNs: bigint;
  /** admitted − requested, ms: the time the job waited for the cap. */
  readonly waitMs: number;
  /** Frees the slot (idempotent). */
  release(): void;
}

export interface Occupancy {
  /** Most starts in flight at once. */
  peak: number;
  /** Time-weighted mean of starts in flight from the first admission to `untilNs`; null before any admission. */
  mean: number | null;
  /** first admission → untilNs, ms. */
  spanMs: number;
}

type Clock = () => bigint;
const hrtime: Clock = () => process.hrtime.bigint();
const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

export class AdmissionGate {
  private inFlightNow = 0;
  private peakNow = 0;
  private readonly waiting: (() => void)[] = [];
  private firstNs: bigint | null = null;
  private lastChangeNs: bigint | null = null;
  /** Σ in-flight × ns since the first admission. */
  private area = 0;

  /** cap: most starts in flight at once (null: no cap); clock: injectable for tests. */
  constructor(
    readonly cap: number | null,
    private readonly clock: Clock = hrtime,
  ) {
    if (cap !== null && !(Number.isInteger(cap) && cap > 0)) throw new Error(`admission cap ${cap}: expected a positive whole number or null`);
  }

  get inFlight(): number {
    return this.inFlightNow;
  }

  /** Resolves once a slot is free (at once without a cap); FIFO among waiters. */
  async admit(): Promise<AdmissionTicket> {
    const requestedNs = this.clock();
    if (this.cap !== null && (this.inFlightNow >= this.cap || this.waiting.length > 0)) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.change(+1);
    }
    const admittedNs = this.clock();
    let released = false;
    return {
      requestedNs,
      admittedNs,
      waitMs: msBetween(requestedNs, admittedNs),
      release: () => {
        if (released) return;
        released = true;
        this.handOver();
      },
    };
  }

  occupancy(untilNs: bigint = this.clock()): Occupancy {
    if (this.firstNs === null || this.lastChangeNs === null) return { peak: 0, mean: null, spanMs: 0 };
    const end = untilNs > this.lastChangeNs ? untilNs : this.lastChangeNs;
    const area = this.area + this.inFlightNow * Number(end - this.lastChangeNs);
    const span = Number(end - this.firstNs);
    return { peak: this.peakNow, mean: span > 0 ? area / span : null, spanMs: span / 1e6 };
  }

  /** A released slot goes straight to the first waiter (so a newcomer cannot overtake it), else is freed. */
  private handOver(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.change(-1);
  }

  private change(delta: number): void {
    const now = this.clock();
    if (this.firstNs === null) this.firstNs = now;
    if (this.lastChangeNs !== null) this.area += this.inFlightNow * Number(now - this.lastChangeNs);
    this.lastChangeNs = now;
    this.inFlightNow += delta;
    this.peakNow = Math.max(this.peakNow, this.inFlightNow);
  }
}
