import { describe, expect, it } from 'vitest';
import { compareMedians, bcaInterval, percentileInterval, jackknifeAcceleration } from '../../../harness/stats/index.ts';
import { seedFromString } from '../../../harness/plan/prng.ts';
import { BOOTSTRAP_PRNG_NAME } from '../../../harness/stats/index-sampler.ts';

const control = Array.from({ length: 60 }, (_, i) => 800 + ((i * 37) % 60) * 0.5);

describe('compareMedians', () => {
  it('a constant paired shift gives a degenerate interval at the shift and "candidate faster"', () => {
    const candidate = control.map((v) => v - 100);
    const r = compareMedians({ candidate, control, paired: true, resamples: 500, seedId: 'run:completion_ms:staged' });
    expect(r.difference).toBe(-100);
    expect(r.difference_ci.percentile).toEqual({ low: -100, high: -100 });
    // Every leave-one-out difference is −100: the jackknife is degenerate, so BCa is not reported.
    expect(r.difference_ci.bca).toBeNull();
    expect(r.bca_degenerate).toBe(true);
    expect(r.notes.join(' ')).toMatch(/BCa degenerate/);
    expect(r.conclusion).toBe('candidate faster');
    expect(r.n_pairs).toBe(60);
    expect(r.hodges_lehmann).toBe(-100);
    expect(r.underpowered).toBe(false);
    expect(r.mann_whitney_p).toBeNull();
    expect(r.signed_rank_p).toBeLessThan(1e-6);
  });

  it('records seed, PRNG and resamples, and is deterministic for a seed id', () => {
    const candidate = control.map((v, i) => v + ((i * 13) % 7) - 3);
    const input = { candidate, control, paired: true, resamples: 1000, seedId: 'run-1:ready_ms:podman' };
    const a = compareMedians(input);
    const b = compareMedians(input);
    expect(a).toEqual(b);
    expect(a.seed).toBe(seedFromString('run-1:ready_ms:podman'));
    expect(a.prng).toBe(BOOTSTRAP_PRNG_NAME);
    expect(a.resamples).toBe(1000);
    expect(a.method).toContain(`seed ${a.seed}`);
    expect(a.method).toContain('1000 resamples');
    expect(a.method).toContain('percentile 95% CI');
    const c = compareMedians({ ...input, seedId: 'run-2:ready_ms:podman' });
    expect(c.seed).not.toBe(a.seed);
  });

  it('"no detected difference" when the interval contains 0, and flags it underpowered', () => {
    const candidate = control.map((v, i) => v + (i % 2 === 0 ? 40 : -40));
    const r = compareMedians({ candidate, control, paired: true, resamples: 1000, seedId: 'x' });
    expect(r.difference_ci.percentile.low).toBeLessThan(0);
    expect(r.difference_ci.percentile.high).toBeGreaterThan(0);
    expect(r.conclusion).toBe('no detected difference');
    expect(r.underpowered).toBe(true);
  });

  it('"candidate slower" when the whole interval is above 0', () => {
    const candidate = control.map((v) => v * 1.2);
    expect(compareMedians({ candidate, control, paired: true, resamples: 500, seedId: 'x' }).conclusion).toBe('candidate slower');
  });

  it('refuses a verdict when either arm is split into clusters', () => {
    const bimodal = control.map((v, i) => (i % 2 === 0 ? v : v * 3));
    const r = compareMedians({ candidate: bimodal, control, paired: true, resamples: 200, seedId: 'x' });
    expect(r.conclusion).toBe('separated distribution; inspect clusters');
  });

  it('unpaired: independent resampling, Mann–Whitney and two-sample Hodges–Lehmann', () => {
    const candidate = control.slice(0, 40).map((v) => v - 50);
    const r = compareMedians({ candidate, control, paired: false, resamples: 1000, seedId: 'x' });
    expect(r.n_pairs).toBeNull();
    expect(r.signed_rank_p).toBeNull();
    expect(r.mann_whitney_p).toBeLessThan(0.001);
    expect(r.n_candidate).toBe(40);
    expect(r.conclusion).toBe('candidate faster');
    expect(r.method).toContain('independent bootstrap');
  });

  it('the ratio interval brackets the ratio of medians', () => {
    const candidate = control.map((v, i) => v * 0.8 + (i % 5));
    const r = compareMedians({ candidate, control, paired: true, resamples: 1000, seedId: 'x' });
    expect(r.ratio_ci!.percentile.low).toBeLessThanOrEqual(r.ratio!);
    expect(r.ratio_ci!.percentile.high).toBeGreaterThanOrEqual(r.ratio!);
    expect(r.ratio).toBeCloseTo(0.8, 1);
  });

  it('rejects unequal paired lengths, empty samples and non-finite values', () => {
    expect(() => compareMedians({ candidate: [1, 2], control: [1], paired: true, resamples: 10, seedId: 'x' })).toThrow(/differ in length/);
    expect(() => compareMedians({ candidate: [], control: [1], paired: false, resamples: 10, seedId: 'x' })).toThrow(/empty/);
    expect(() => compareMedians({ candidate: [1, NaN], control: [1, 2], paired: true, resamples: 10, seedId: 'x' })).toThrow(/candidate\[1\]/);
  });
});

describe('interval helpers', () => {
  const replicates = Float64Array.from({ length: 101 }, (_, i) => i); // 0..100

  it('percentile interval = type-7 quantiles 2.5% and 97.5%', () => {
    const ci = percentileInterval(replicates);
    expect(ci.low).toBeCloseTo(2.5, 10);
    expect(ci.high).toBeCloseTo(97.5, 10);
  });

  it('BCa with z0 = 0 and a = 0 equals the percentile interval', () => {
    // 50 replicates below 50, one equal (counted ½), 50 above → proportion ½ → z0 = 0.
    const bca = bcaInterval(replicates, 50, 0);
    expect(bca.low).toBeCloseTo(2.5, 6);
    expect(bca.high).toBeCloseTo(97.5, 6);
  });

  it('jackknife acceleration is 0 for symmetric leave-one-out values and follows eq. 14.15 otherwise', () => {
    expect(jackknifeAcceleration([Float64Array.of(1, 2, 3)])).toBe(0);
    // θ_(j) = 0, 0, 3: mean 1, d = 1, 1, −2 → Σd³ = −6, Σd² = 6 → â = −6 / (6 · 6^{3/2}) = −0.0680414
    expect(jackknifeAcceleration([Float64Array.of(0, 0, 3)])).toBeCloseTo(-1 / Math.pow(6, 1.5), 12);
  });
});
