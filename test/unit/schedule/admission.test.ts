/** The admission gate (harness/schedule/admission.ts) on a hand-driven clock: the cap holds, waiters are served first come first served, waits and occupancy are exact. */
import { describe, expect, it } from 'vitest';
import { AdmissionCapSchema, AdmissionGate, capLabel, capOf } from '../../../harness/schedule/index.ts';

function manualClock() {
  let t = 0n;
  return { clock: () => t, advance: (ms: number) => (t += BigInt(ms * 1e6)) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('AdmissionGate', () => {
  it('admits up to the cap, then hands each freed slot to the first waiter, recording the wait', async () => {
    const { clock, advance } = manualClock();
    const gate = new AdmissionGate(2, clock);
    const a = await gate.admit();
    const b = await gate.admit();
    const order: string[] = [];
    const c = gate.admit().then((t) => (order.push('c'), t));
    const d = gate.admit().then((t) => (order.push('d'), t));
    await settle();
    expect(order).toEqual([]);
    expect(gate.inFlight).toBe(2);
    advance(30);
    a.release();
    a.release(); // idempotent: frees one slot only
    await settle();
    expect(order).toEqual(['c']);
    advance(20);
    b.release();
    await settle();
    expect(order).toEqual(['c', 'd']);
    expect(a.waitMs).toBe(0);
    expect((await c).waitMs).toBe(30);
    expect((await d).waitMs).toBe(50);
    expect(gate.inFlight).toBe(2);
  });

  it('a newcomer never overtakes a waiter', async () => {
    const gate = new AdmissionGate(1);
    const first = await gate.admit();
    const order: string[] = [];
    void gate.admit().then((t) => (order.push('waiter'), t.release()));
    first.release();
    void gate.admit().then((t) => (order.push('newcomer'), t.release()));
    await settle();
    await settle();
    expect(order).toEqual(['waiter', 'newcomer']);
  });

  it('occupancy: peak and the time-weighted mean of starts in flight', async () => {
    const { clock, advance } = manualClock();
    const gate = new AdmissionGate(null, clock);
    expect(gate.occupancy()).toEqual({ peak: 0, mean: null, spanMs: 0 });
    const a = await gate.admit(); // 1 in flight for 10 ms
    advance(10);
    const b = await gate.admit(); // 2 for 10 ms
    advance(10);
    a.release(); // 1 for 20 ms
    advance(20);
    b.release(); // 0 for 10 ms
    advance(10);
    // area = 1·10 + 2·10 + 1·20 + 0·10 = 50 over 50 ms
    expect(gate.occupancy()).toEqual({ peak: 2, mean: 1, spanMs: 50 });
  });

  it('no cap never waits; a bad cap is refused', async () => {
    const gate = new AdmissionGate(null);
    const tickets = await Promise.all(Array.from({ length: 100 }, () => gate.admit()));
    expect(gate.inFlight).toBe(100);
    expect(tickets.every((t) => t.waitMs < 50)).toBe(true);
    expect(() => new AdmissionGate(0)).toThrow(/positive whole number/);
    expect(() => new AdmissionGate(2.5)).toThrow(/positive whole number/);
  });

  it('spec values: a number or none, labelled safely', () => {
    expect(capOf(AdmissionCapSchema.parse(8))).toBe(8);
    expect(capOf(AdmissionCapSchema.parse('none'))).toBeNull();
    expect(AdmissionCapSchema.safeParse(0).success).toBe(false);
    expect(AdmissionCapSchema.safeParse('unlimited').success).toBe(false);
    expect([capLabel(8), capLabel(null)]).toEqual(['cap8', 'capnone']);
  });
});
