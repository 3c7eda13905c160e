import { describe, expect, it } from 'vitest';
import { medianOrderStatisticCi } from '../../../harness/stats/index.ts';

describe('order-statistic CI of the median (binomial, hand-checked)', () => {
  it('n = 6: [x(1), x(6)] with coverage 1 − 2/64', () => {
    const ci = medianOrderStatisticCi([6, 1, 5, 2, 4, 3])!;
    expect([ci.low, ci.high]).toEqual([1, 6]);
    expect(ci.coverage).toBeCloseTo(1 - 2 / 64, 12);
  });
  it('n = 10: [x(2), x(9)] with coverage 1 − 2·11/1024', () => {
    const ci = medianOrderStatisticCi([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])!;
    expect([ci.low, ci.high]).toEqual([2, 9]);
    expect(ci.coverage).toBeCloseTo(1 - 22 / 1024, 12);
  });
  it('n = 5 has no 95% interval; n = 10,000 stays finite', () => {
    expect(medianOrderStatisticCi([1, 2, 3, 4, 5])).toBeNull();
    const big = Array.from({ length: 10_000 }, (_, i) => i);
    const ci = medianOrderStatisticCi(big)!;
    expect(ci.low).toBeGreaterThan(4850);
    expect(ci.high).toBeLessThan(5150);
    expect(ci.coverage).toBeGreaterThanOrEqual(0.95);
  });
});
