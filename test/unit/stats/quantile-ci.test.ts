import { describe, expect, it } from 'vitest';
import { medianOrderStatisticCi } from '../../../harness/stats/median-ci.ts';
import { quantileOrderStatisticCi } from '../../../harness/stats/quantile-ci.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

describe('quantileOrderStatisticCi', () => {
  it('at p = ½ picks the same order statistics as the median interval', () => {
    const values = Array.from({ length: 57 }, (_, i) => (i * 37) % 101);
    const median = medianOrderStatisticCi(values)!;
    const general = quantileOrderStatisticCi(values, 0.5)!;
    expect([general.low, general.high]).toEqual([median.low, median.high]);
  });

  it('leaves a bound no order statistic reaches null instead of using the sample extreme', () => {
    const values = Array.from({ length: 128 }, (_, i) => i);
    const p99 = quantileOrderStatisticCi(values, 0.99)!;
    // P(Bin(128, 0.99) = 128) = 0.276 > 0.025: no upper bound from 128 values.
    expect(p99.high).toBeNull();
    expect(p99.low).not.toBeNull();
  });

  it('covers the true P95 of a uniform distribution at least 95% of the time', () => {
    const prng = createPrng(5);
    let covered = 0;
    const datasets = 400;
    for (let d = 0; d < datasets; d++) {
      const values = Array.from({ length: 200 }, () => prng.int(0, 999_999) / 1_000_000);
      const ci = quantileOrderStatisticCi(values, 0.95)!;
      if (ci.low !== null && ci.high !== null && ci.low <= 0.95 && 0.95 <= ci.high) covered++;
    }
    expect(covered / datasets).toBeGreaterThanOrEqual(0.93);
  });
});
