/** Issue 13 guards of compareMedians: minimum n, undefined ratios, coarse resolution. */
import { describe, expect, it } from 'vitest';
import { compareMedians, MIN_PAIRS, minimumPairsFor, minimumSignedRankP, wilcoxonSignedRank } from '../../../harness/stats/index.ts';

describe('minimum n', () => {
  it('is 6: the smallest n at which the exact two-sided signed-rank test can reach p < 0.05', () => {
    expect(MIN_PAIRS).toBe(6);
    expect(minimumSignedRankP(5)).toBe(0.0625);
    expect(minimumSignedRankP(6)).toBe(0.03125);
    // The derivation agrees with the test itself: all-positive differences give exactly 2/2^n.
    expect(wilcoxonSignedRank([1, 2, 3, 4, 5])!.p).toBeCloseTo(0.0625, 12);
    expect(wilcoxonSignedRank([1, 2, 3, 4, 5, 6])!.p).toBeCloseTo(0.03125, 12);
    expect(minimumPairsFor(0.01)).toBe(8);
  });

  it('one block: insufficient data, underpowered, the interval kept for information', () => {
    const r = compareMedians({ candidate: [105], control: [100], paired: true, resamples: 200, seedId: 'n1' });
    expect(r.conclusion).toBe('insufficient data');
    expect(r.underpowered).toBe(true);
    expect(r.difference_ci.percentile).toEqual({ low: 5, high: 5 });
    expect(r.notes[0]).toMatch(/1 pairs < 6 .*information only/);
  });

  it('5 pairs all slower: still insufficient data; 6 pairs: a verdict', () => {
    const control = [100, 101, 102, 103, 104, 105];
    const candidate = control.map((v) => v + 20);
    expect(compareMedians({ candidate: candidate.slice(0, 5), control: control.slice(0, 5), paired: true, resamples: 500, seedId: 'n5' }).conclusion).toBe('insufficient data');
    expect(compareMedians({ candidate, control, paired: true, resamples: 500, seedId: 'n6' }).conclusion).toBe('candidate slower');
  });

  it('unpaired: the smaller arm binds', () => {
    const r = compareMedians({ candidate: [1, 2, 3, 4, 5], control: Array.from({ length: 40 }, (_, i) => 50 + i), paired: false, resamples: 200, seedId: 'u' });
    expect(r.conclusion).toBe('insufficient data');
  });
});

describe('undefined ratio', () => {
  it('control median 0: ratio null, ratio interval null, a note; the difference still decides', () => {
    const control = [0, 0, 0, 0, 0, 0, 0, 1];
    const candidate = [3, 3, 3, 4, 4, 4, 5, 5];
    const r = compareMedians({ candidate, control, paired: true, resamples: 500, seedId: 'z' });
    expect(r.ratio).toBeNull();
    expect(r.ratio_ci).toBeNull();
    expect(r.ratio_note).toMatch(/control statistic is 0/);
    expect(r.conclusion).toBe('candidate slower');
  });

  it('both medians 0: ratio undefined, no NaN anywhere', () => {
    const zeros = [0, 0, 0, 0, 0, 0, 0];
    const r = compareMedians({ candidate: zeros, control: zeros, paired: true, resamples: 100, seedId: 'zz' });
    expect(r.ratio).toBeNull();
    expect(r.ratio_note).toMatch(/both are 0/);
    expect(Number.isNaN(r.difference)).toBe(false);
    expect(r.conclusion).toBe('no detected difference');
  });

  it('a control whose resamples can have median 0 leaves the ratio undefined', () => {
    const control = [0, 0, 0, 1, 1, 1, 1, 1, 1];
    const candidate = [2, 2, 2, 2, 2, 2, 2, 2, 2];
    const r = compareMedians({ candidate, control, paired: true, resamples: 2000, seedId: 'zr' });
    expect(r.ratio).toBeNull();
    expect(r.ratio_note).toMatch(/0 in \d+ of 2000 resamples/);
  });
});

describe('coarse resolution', () => {
  it('warns when fewer than half the values are distinct, and not otherwise', () => {
    const rounded = Array.from({ length: 20 }, (_, i) => 20 + (i % 3));
    const fine = Array.from({ length: 20 }, (_, i) => 20 + i * 0.013);
    expect(compareMedians({ candidate: rounded, control: rounded.map((v) => v + 1), paired: true, resamples: 100, seedId: 'r' }).notes.join(' ')).toMatch(/coarse resolution: 4 distinct values among 40/);
    expect(compareMedians({ candidate: fine, control: fine.map((v) => v + 1), paired: true, resamples: 100, seedId: 'r' }).notes.join(' ')).not.toMatch(/coarse/);
  });
});
