/**
 * Fixed model-service capacity: `slots` requests in service at once, the rest wait in arrival
 * (FIFO) order. A waiter whose client went away is taken out of the queue, so it costs no slot time.
 */
export interface SlotTicket {
  /** Resolves true when a slot is held, false when cancelled before it got one. */
  granted: Promise<boolean>;
  cancel(): void;
}

export class SlotQueue {
  private busy = 0;
  private readonly waiters: Array<(granted: boolean) => void> = [];
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
      return { granted: Promise.resolve(true), cancel: () => undefined };
    }
    let resolveWaiter!: (granted: boolean) => void;
    const granted = new Promise<boolean>((resolve) => (resolveWaiter = resolve));
    this.waiters.push(resolveWaiter);
    this.maxQueued = Math.max(this.maxQueued, this.waiters.length);
    return {
      granted,
      cancel: () => {
        const index = this.waiters.indexOf(resolveWaiter);
        if (index >= 0) {
          this.waiters.splice(index, 1);
          resolveWaiter(false);
        }
      },
    };
  }

  /** Hand the slot straight to the longest waiter (no gap in which a newcomer could overtake it). */
  release(): void {
    const next = this.waiters.shift();
    if (next) next(true);
    else this.busy -= 1;
  }

  /** Refuse every waiter (service closing). */
  drain(): void {
    for (const waiter of this.waiters.splice(0)) waiter(false);
  }
}
