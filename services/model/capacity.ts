/**
 * Fixed model-service capacity: `slots` requests in service at once, the rest wait in arrival
 * (FIFO) order. A waiter whose client went away is taken out of the queue, so it costs no slot time.
 *
 * Capacity runs on a schedule, not on the wall: a slot handed over carries the time its previous
 * reply was *due* to end, and the next reply's deadlines count from there (or from its own arrival,
 * if later). A reply that ended late (a timer or the machine's run queue delayed it) then does not
 * push every later reply back: the next one catches up, so lateness stays per reply instead of
 * accumulating along the queue, and throughput holds at slots ÷ service time.
 */
export type Grant = { granted: true; handoffDueNs: bigint | null } | { granted: false };

export interface SlotTicket {
  /** A slot (with the due end of its previous reply when it was handed over), or refused when cancelled. */
  granted: Promise<Grant>;
  cancel(): void;
}

export class SlotQueue {
  private busy = 0;
  private readonly waiters: Array<(grant: Grant) => void> = [];
  maxQueued = 0;

  constructor(readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`slots must be an integer ≥ 1 (got ${slots})`);
  }

  get active(): number {
    return this.busy;
  }

  get queued(): number {
    return this.waiters.length;
  }

  acquire(): SlotTicket {
    if (this.busy < this.slots && this.waiters.length === 0) {
      this.busy += 1;
      return { granted: Promise.resolve({ granted: true, handoffDueNs: null }), cancel: () => undefined };
    }
    let resolveWaiter!: (grant: Grant) => void;
    const granted = new Promise<Grant>((resolve) => (resolveWaiter = resolve));
    this.waiters.push(resolveWaiter);
    this.maxQueued = Math.max(this.maxQueued, this.waiters.length);
    return {
      granted,
      cancel: () => {
        const index = this.waiters.indexOf(resolveWaiter);
        if (index >= 0) {
          this.waiters.splice(index, 1);
          resolveWaiter({ granted: false });
        }
      },
    };
  }

  /** Hand the slot straight to the longest waiter (no gap in which a newcomer could overtake it), with the due end of the reply that held it. */
  release(dueEndNs: bigint | null = null): void {
    const next = this.waiters.shift();
    if (next) next({ granted: true, handoffDueNs: dueEndNs });
    else this.busy -= 1;
  }

  /** Refuse every waiter (service closing). */
  drain(): void {
    for (const waiter of this.waiters.splice(0)) waiter({ granted: false });
  }
}
