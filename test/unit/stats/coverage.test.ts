/**
 * Coverage of the paired-round bootstrap CI of the difference of medians: 1,000 simulated datasets of
 * 60 paired rounds, lognormal timings with a shared per-round effect (drift both arms feel) and
 * independent noise. The nominal 95% interval must cover the true difference in 93–98% of datasets.
 * Resamples are 1,000 here instead of 5,000 so the test stays fast; the percentile endpoints move by
 * Monte Carlo noise only (the 2.5% tail still holds 25 replicates).
 */
import { describe, expect, it } from 'vitest';
import { compareMedians } from '../../../harness/stats/index.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

const DATASETS = 1000;
const ROUNDS = 60;
const RESAMPLES = 1000;

describe('bootstrap coverage (fixed seed)', () => {
  it('nominal 95% percentile and BCa intervals cover the true median difference 93–98% of the time', () => {
    const prng = createPrng(20261006);
    const gaussian = () => Math.sqrt(-2 * Math.log(1 - prng.float())) * Math.cos(2 * Math.PI * prng.float());
    // log-times: control ~ N(ln 800, 0.05² + 0.03²), candidate ~ N(ln 640, same); true medians are exp(μ).
    const muControl = Math.log(800);
    const muCandidate = Math.log(640);
    const truth = Math.exp(muCandidate) - Math.exp(muControl);
    let percentileCovered = 0;
    let bcaCovered = 0;
    for (let d = 0; d < DATASETS; d++) {
      const candidate: number[] = [];
      const control: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const round = 0.03 * gaussian();
        control.push(Math.exp(muControl + round + 0.05 * gaussian()));
        candidate.push(Math.exp(muCandidate + round + 0.05 * gaussian()));
      }
      const c = compareMedians({ candidate, control, paired: true, resamples: RESAMPLES, seedId: `coverage:${d}` });
      if (c.difference_ci.percentile.low <= truth && truth <= c.difference_ci.percentile.high) percentileCovered++;
      if (c.difference_ci.bca && c.difference_ci.bca.low <= truth && truth <= c.difference_ci.bca.high) bcaCovered++;
    }
    const percentile = percentileCovered / DATASETS;
    const bca = bcaCovered / DATASETS;
    console.log(`coverage over ${DATASETS} datasets × ${ROUNDS} rounds, ${RESAMPLES} resamples: percentile ${(percentile * 100).toFixed(1)}%, BCa ${(bca * 100).toFixed(1)}%`);
    expect(percentile).toBeGreaterThanOrEqual(0.93);
    expect(percentile).toBeLessThanOrEqual(0.98);
    expect(bca).toBeGreaterThanOrEqual(0.93);
    expect(bca).toBeLessThanOrEqual(0.98);
  }, 120_000); // ~5–10 s alone; the generous timeout absorbs a loaded shared machine, the work is fixed
});
