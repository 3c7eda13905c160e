import { describe, expect, it } from 'vitest';
import { median, quantile, summarize } from '../../../harness/stats/index.ts';

describe('type-7 percentiles (Hyndman & Fan 1996; R quantile() default)', () => {
  it('interpolates linearly between order statistics: h = (n − 1)p', () => {
    // [1,2,3,4], p = 0.25: h = 0.75 → 1 + 0.75·(2 − 1) = 1.75 (R: quantile(1:4, .25) = 1.75)
    expect(quantile([4, 1, 3, 2], 0.25)).toBe(1.75);
    // 1..10, p = 0.95: h = 8.55 → 9 + 0.55·1 = 9.55 (R: quantile(1:10, .95) = 9.55)
    expect(quantile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.95)).toBeCloseTo(9.55, 12);
    // [10,20,30,40,50], p = 0.95: h = 3.8 → 40 + 0.8·10 = 48
    expect(quantile([50, 40, 30, 20, 10], 0.95)).toBe(48);
    expect(quantile([7], 0.95)).toBe(7);
  });

  it('median is the middle value, or the mean of the two middle values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('rejects an empty sample and a probability outside [0, 1]', () => {
    expect(() => quantile([], 0.5)).toThrow(/empty/);
    expect(() => quantile([1], 1.5)).toThrow(/outside/);
  });
});

describe('summary', () => {
  const thirty = Array.from({ length: 30 }, (_, i) => 100 + i);

  it('reports P95 only from n ≥ 30', () => {
    expect(summarize(thirty.slice(0, 29)).p95).toBeNull();
    // 100..129, p = 0.95: h = 27.55 → 127 + 0.55 = 127.55
    expect(summarize(thirty).p95).toBeCloseTo(127.55, 10);
  });

  it('gives n, failed, p50, min, max, mean and MAD', () => {
    const s = summarize([1, 2, 3, 4, 100], 2);
    expect(s).toMatchObject({ n: 5, failed: 2, p50: 3, min: 1, max: 100, mean: 22 });
    // |x − 3| = 2,1,0,1,97 → median 1
    expect(s.mad).toBe(1);
  });

  it('is all-absent (null, never 0) when nothing valid was measured', () => {
    expect(summarize([], 3)).toMatchObject({ n: 0, failed: 3, p50: null, p95: null, min: null, max: null, mean: null });
  });
});
