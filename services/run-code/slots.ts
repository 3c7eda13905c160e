/** N sandboxes at once; requests beyond that wait in arrival (FIFO) order. */
export class SandboxSlots {
  private busy = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`slots must be an integer ≥ 1 (got ${slots})`);
  }

  get queued(): number {
    return this.waiters.length;
  }

  async acquire(): Promise<void> {
    if (this.busy < this.slots && this.waiters.length === 0) {
      this.busy += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Hand the slot straight to the longest waiter, so no newcomer overtakes it. */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.busy -= 1;
  }
}
