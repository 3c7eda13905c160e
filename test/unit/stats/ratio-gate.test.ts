/** The gate's pure cell rule (harness/stats/ratio-gate.ts) and the power formula it shares with `sandbench power`. */
import { describe, expect, it } from 'vitest';
import { blocksNeeded, decideCell, estimateRatioGate, MEDIAN_SE_FACTOR, predictedPower, studentTQuantile, wilsonInterval, holm, benjaminiHochberg } from '../../../harness/stats/index.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

function lognormal(seed: number, n: number, median: number, sigma: number): number[] {
  const prng = createPrng(seed);
  return Array.from({ length: n }, () => median * Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - prng.float())) * Math.cos(2 * Math.PI * prng.float())));
}

const base = { resamples: 1000, seed: 7, limit: 1.05 } as const;

describe('estimateRatioGate + decideCell', () => {
  it('interleaved (paired): a 30% slower candidate is a regression, an unchanged one is not', () => {
    const b = lognormal(1, 30, 800, 0.05);
    const slow = b.map((v, i) => v * 1.3 * Math.exp(0.02 * Math.sin(i)));
    const e = estimateRatioGate({ ...base, statistic: 'p50', design: 'paired', candidateRuns: [slow], baselineRuns: [b] });
    expect(decideCell(e, 1.05, e.pRegression).decision).toBe('regression');
    expect(e.runVarianceCovered).toBe(true);
    const same = b.map((v, i) => v * Math.exp(0.01 * Math.cos(i)));
    const e2 = estimateRatioGate({ ...base, statistic: 'p50', design: 'paired', candidateRuns: [same], baselineRuns: [b] });
    expect(decideCell(e2, 1.05, e2.pRegression).decision).toBe('pass');
  });

  it('one run per side says between-run variance is not covered; a calibrated τ widens the interval', () => {
    const b = lognormal(2, 40, 800, 0.1);
    const c = lognormal(3, 40, 800, 0.1);
    const plain = estimateRatioGate({ ...base, statistic: 'p50', design: 'independent', candidateRuns: [c], baselineRuns: [b] });
    expect(plain.notes.join(' ')).toMatch(/between-run variance not covered/);
    const widened = estimateRatioGate({ ...base, statistic: 'p50', design: 'independent', candidateRuns: [c], baselineRuns: [b], runVariance: { sd: 0.04, df: 4, source: 'test' } });
    expect(widened.notes.join(' ')).not.toMatch(/not covered/);
    expect(widened.interval!.high - widened.interval!.low).toBeGreaterThan(plain.interval!.high - plain.interval!.low);
    expect(widened.method).toMatch(/τ = 0.0400/);
  });

  it('hierarchical: run offsets between baseline runs widen the interval (t on the runs\' df)', () => {
    const runs = [0, 0.08, -0.08].map((offset, j) => lognormal(10 + j, 40, 800 * Math.exp(offset), 0.05));
    const tight = [0, 0.001, -0.001].map((offset, j) => lognormal(10 + j, 40, 800 * Math.exp(offset), 0.05));
    const c = [lognormal(20, 40, 800, 0.05)];
    const wide = estimateRatioGate({ ...base, statistic: 'p50', design: 'hierarchical', candidateRuns: c, baselineRuns: runs });
    const narrow = estimateRatioGate({ ...base, statistic: 'p50', design: 'hierarchical', candidateRuns: c, baselineRuns: tight });
    expect(wide.interval!.high / wide.interval!.low).toBeGreaterThan(1.1 * (narrow.interval!.high / narrow.interval!.low));
    expect(wide.method).toMatch(/t\(2 df\)/);
  });

  it('P95 needs ≥ 30 values per run; P50 ≥ 6', () => {
    const few = lognormal(4, 20, 800, 0.1);
    const e = estimateRatioGate({ ...base, statistic: 'p95', design: 'independent', candidateRuns: [few], baselineRuns: [few] });
    expect(decideCell(e, 1.05, null)).toMatchObject({ decision: 'invalid' });
    expect(e.blockers[0]).toMatch(/need ≥ 30/);
    const five = estimateRatioGate({ ...base, statistic: 'p50', design: 'independent', candidateRuns: [few.slice(0, 5)], baselineRuns: [few] });
    expect(five.blockers[0]).toMatch(/has 5, need ≥ 6/);
  });

  it('separated clusters under a P50 gate: invalid with "inspect clusters"; a P95 gate judges the tail', () => {
    const b = lognormal(5, 60, 800, 0.05);
    const prng = createPrng(6);
    const c = lognormal(7, 60, 800, 0.05).map((v) => (prng.float() < 0.4 ? v * 2.2 : v));
    const p50 = estimateRatioGate({ ...base, statistic: 'p50', design: 'independent', candidateRuns: [c], baselineRuns: [b] });
    expect(p50.clusters).toBe(true);
    expect(decideCell(p50, 1.05, null).reason).toMatch(/inspect clusters/);
    const p95 = estimateRatioGate({ ...base, statistic: 'p95', design: 'independent', candidateRuns: [c], baselineRuns: [b] });
    expect(decideCell(p95, 1.05, p95.pRegression).decision).toBe('regression');
  });

  it('undefined ratio: zeros on both sides pass on the difference; from a zero baseline an increase is a regression', () => {
    const zeros = Array.from({ length: 10 }, () => 0);
    const both = estimateRatioGate({ ...base, statistic: 'p50', design: 'independent', candidateRuns: [zeros], baselineRuns: [zeros] });
    expect(both.ratio).toBeNull();
    expect(decideCell(both, 1.05, null).decision).toBe('pass');
    const up = estimateRatioGate({ ...base, statistic: 'p50', design: 'independent', candidateRuns: [zeros.map((_, i) => 3 + 0.1 * i)], baselineRuns: [zeros] });
    expect(decideCell(up, 1.05, null).decision).toBe('regression');
    const mixed = estimateRatioGate({ ...base, statistic: 'p50', design: 'independent', candidateRuns: [[0, 0, 0, 0, 0, 1, 1, 1, 1, 1]], baselineRuns: [[0, 0, 0, 0, 0, 1, 1, 1, 1, 1]] });
    expect(decideCell(mixed, 1.05, null).decision).toBe('invalid');
  });
});

describe('power formula', () => {
  it('reproduces the issue figures: an A/A pass at 5% with 80% power needs ≈ 103 blocks at σ = 0.1 and ≈ 930 at σ = 0.3', () => {
    const se = (sigma: number, n: number) => MEDIAN_SE_FACTOR * sigma * Math.sqrt(2 / n);
    expect(blocksNeeded({ se: se(0.1, 60), n: 60, distance: Math.log(1.05) }, 0.8)).toBe(104);
    expect(blocksNeeded({ se: se(0.3, 60), n: 60, distance: Math.log(1.05) }, 0.8)).toBe(933);
    // At the n it returns, the predicted power is the one asked for.
    expect(predictedPower({ se: se(0.1, 60), n: 60, distance: Math.log(1.05) }, 104)).toBeGreaterThanOrEqual(0.8);
    expect(predictedPower({ se: se(0.1, 60), n: 60, distance: Math.log(1.05) }, 103)).toBeLessThan(0.8);
    // The audit's check: 57% predicted for an A/A pass at 60 blocks (55.8% simulated).
    expect(predictedPower({ se: se(0.1, 60), n: 60, distance: Math.log(1.05) })).toBeCloseTo(0.568, 2);
  });
});

describe('small helpers', () => {
  it('Student t quantiles match tables', () => {
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.302653, 5);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.228139, 5);
  });
  it('Wilson interval (R binom::binom.wilson): 5 of 100 → [2.15%, 11.18%]', () => {
    const w = wilsonInterval(5, 100);
    expect(w.low).toBeCloseTo(0.02154, 4);
    expect(w.high).toBeCloseTo(0.11175, 4);
  });
  it('Holm and BH match R p.adjust', () => {
    const p = [0.01, 0.04, 0.03, 0.005];
    expect(holm(p).map((x) => Number(x.toFixed(4)))).toEqual([0.03, 0.06, 0.06, 0.02]);
    expect(benjaminiHochberg(p).map((x) => Number(x.toFixed(4)))).toEqual([0.02, 0.04, 0.04, 0.02]);
  });
});
