import { describe, expect, it } from 'vitest';
import { kendallVariance, theilSen } from '../../../harness/stats/theil-sen.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

function gaussianSource(seed: number): () => number {
  const prng = createPrng(seed);
  return () => Math.sqrt(-2 * Math.log(1 - prng.float())) * Math.cos(2 * Math.PI * prng.float());
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('Theil–Sen slope with Sen\'s rank-based interval', () => {
  it('matches a hand computation: x = 1..5, y = 1 2 4 3 5', () => {
    // Pairwise slopes sorted: −1, .5, .5, .667, 1, 1, 1, 1.5, 2, 2; Var(S) = 5·4·15/18, C = 1.96·4.08 = 8.0,
    // so the 95% interval is the slopes of ranks round(1.0) = 1 and round(9.0) + 1 = 10.
    const estimate = theilSen([1, 2, 3, 4, 5], [1, 2, 4, 3, 5]);
    expect(estimate.pairs).toBe(10);
    expect(estimate.slope).toBe(1);
    expect(estimate.lower).toBe(-1);
    expect(estimate.upper).toBe(2);
  });

  it('recovers an exact line, and a line under one wild outlier', () => {
    const x = range(30);
    expect(theilSen(x, x.map((v) => 3 * v + 7))).toMatchObject({ slope: 3, lower: 3, upper: 3 });
    const y = x.map((v) => 3 * v + 7);
    y[10] = 10_000;
    const estimate = theilSen(x, y);
    expect(estimate.slope).toBe(3);
    expect(estimate.lower).toBeGreaterThan(2.9);
  });

  it('a constant series (every y tied) has slope 0 and a zero-width interval at 0', () => {
    expect(kendallVariance(range(20), Array(20).fill(4))).toBe(0);
    expect(theilSen(range(20), Array(20).fill(4))).toMatchObject({ slope: 0, lower: 0, upper: 0 });
  });

  it('a bounded sawtooth (a resource that rises and falls with each campaign cycle) has an interval containing 0', () => {
    const x = range(60);
    const estimate = theilSen(x, x.map((v) => [0, 3, 5, 2][v % 4]!));
    expect(estimate.lower).toBeLessThanOrEqual(0);
    expect(estimate.upper).toBeGreaterThanOrEqual(0);
  });

  it('covers a zero slope about 95% of the time under independent noise (400 seeded series of 40 points)', () => {
    const normal = gaussianSource(36);
    const x = range(40);
    let misses = 0;
    for (let s = 0; s < 400; s++) {
      const estimate = theilSen(x, x.map(() => normal()));
      if (estimate.lower > 0 || estimate.upper < 0) misses++;
    }
    // Binomial(400, 0.05): mean 20, sd 4.4; 8..34 is beyond ±2.7 sd.
    expect(misses).toBeGreaterThanOrEqual(8);
    expect(misses).toBeLessThanOrEqual(34);
  });

  it('detects a slow leak under noise: +0.1 per sample over 60 samples of sd 1', () => {
    const normal = gaussianSource(7);
    const x = range(60);
    const estimate = theilSen(x, x.map((v) => 0.1 * v + normal()));
    expect(estimate.lower).toBeGreaterThan(0);
    expect(estimate.slope).toBeGreaterThan(0.05);
    expect(estimate.slope).toBeLessThan(0.15);
  });

  it('gives no interval below 4 points, and refuses mismatched input', () => {
    expect(Number.isNaN(theilSen([0, 1, 2], [0, 1, 2]).lower)).toBe(true);
    expect(theilSen([0, 1], [0, 2]).slope).toBe(2);
    expect(Number.isNaN(theilSen([1, 1], [0, 2]).slope)).toBe(true);
    expect(() => theilSen([0, 1], [0])).toThrow(/2 x values for 1 y values/);
  });
});
