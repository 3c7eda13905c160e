import { describe, expect, it } from 'vitest';
import { stratifiedBootstrap } from '../../../harness/stats/stratified-bootstrap.ts';
import { median } from '../../../harness/stats/index.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

function noisy(n: number, center: number, spread: number, seed: number): number[] {
  const prng = createPrng(seed);
  return Array.from({ length: n }, () => center + spread * (prng.float() - 0.5));
}

describe('stratified bootstrap across hosts', () => {
  // Host A is fast (control ≈ 10, candidate ≈ 12), host B ten times slower (100 vs 120).
  const a = { key: 'A', control: noisy(20, 10, 1, 1), candidate: noisy(20, 12, 1, 2) };
  const b = { key: 'B', control: noisy(10, 100, 10, 3), candidate: noisy(10, 120, 10, 4) };

  it('combines per-host differences of medians, weighted by blocks — never the pooled median', () => {
    const e = stratifiedBootstrap([b, a], { resamples: 2000, seed: 11 });
    const dA = median(a.candidate) - median(a.control);
    const dB = median(b.candidate) - median(b.control);
    expect(e.difference).toBeCloseTo((20 * dA + 10 * dB) / 30, 10);
    const pooled = median([...a.candidate, ...b.candidate]) - median([...a.control, ...b.control]);
    expect(Math.abs(e.difference - pooled)).toBeGreaterThan(1);
    expect(e.strata.map((s) => [s.key, s.n_blocks, s.weight])).toEqual([['A', 20, 20 / 30], ['B', 10, 10 / 30]]);
    expect(e.ratio).toBeCloseTo(Math.exp((20 * Math.log(median(a.candidate) / median(a.control)) + 10 * Math.log(median(b.candidate) / median(b.control))) / 30), 10);
    expect(e.difference_ci.low).toBeLessThan(e.difference);
    expect(e.difference_ci.high).toBeGreaterThan(e.difference);
    expect(e.difference_ci.low).toBeGreaterThan(0);
    expect(e.ratio_ci!.low).toBeGreaterThan(1);
  });

  it('resamples within hosts only: a host-level offset adds no width', () => {
    // Every block's candidate is exactly control + 5 on both hosts: within-host resampling sees no
    // spread in the difference, whatever the 100× gap between the hosts.
    const control1 = noisy(15, 10, 2, 5);
    const control2 = noisy(15, 1000, 200, 6);
    const e = stratifiedBootstrap(
      [{ key: 'x', control: control1, candidate: control1.map((v) => v + 5) }, { key: 'y', control: control2, candidate: control2.map((v) => v + 5) }],
      { resamples: 1000, seed: 3 },
    );
    expect(e.difference).toBeCloseTo(5, 9);
    expect(e.difference_ci.low).toBeCloseTo(5, 9);
    expect(e.difference_ci.high).toBeCloseTo(5, 9);
  });

  it('is deterministic for a seed and sensitive to it', () => {
    const one = stratifiedBootstrap([a, b], { resamples: 500, seed: 1 });
    expect(stratifiedBootstrap([b, a], { resamples: 500, seed: 1 })).toEqual(one);
    expect(stratifiedBootstrap([a, b], { resamples: 500, seed: 2 }).difference_ci).not.toEqual(one.difference_ci);
  });

  it('leaves the ratio undefined (null) when a median is not positive, and refuses bad strata', () => {
    expect(stratifiedBootstrap([{ key: 'z', control: [0, 0, 0], candidate: [1, 2, 3] }], { resamples: 10, seed: 1 }).ratio).toBeNull();
    expect(() => stratifiedBootstrap([], { resamples: 10, seed: 1 })).toThrow(/no strata/);
    expect(() => stratifiedBootstrap([{ key: 'z', control: [1, 2], candidate: [1] }], { resamples: 10, seed: 1 })).toThrow(/paired/);
    expect(() => stratifiedBootstrap([a, { ...a }], { resamples: 10, seed: 1 })).toThrow(/twice/);
  });
});
