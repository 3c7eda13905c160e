import { describe, expect, it } from 'vitest';
import { detectClusters, minimumClusterSize, summarize } from '../../../harness/stats/index.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

// Every constructed value below is a multiple of 0.25, so each gap and median is exact in binary floating point.
describe('separated-cluster rule', () => {
  it('minimum cluster size is max(5, ⌈0.1·n⌉)', () => {
    expect(minimumClusterSize(10)).toBe(5);
    expect(minimumClusterSize(50)).toBe(5);
    expect(minimumClusterSize(51)).toBe(6);
    expect(minimumClusterSize(60)).toBe(6);
  });

  it('splits a clearly bimodal sample and reports both clusters, with no single P50', () => {
    const prng = createPrng(7);
    const low = Array.from({ length: 30 }, () => 6 + prng.float() * 0.5);
    const high = Array.from({ length: 30 }, () => 12 + prng.float() * 4);
    const s = summarize([...high, ...low]);
    expect(s.clusters?.distribution).toBe('separated-clusters');
    if (s.clusters?.distribution !== 'separated-clusters') return;
    expect(s.clusters.low.n).toBe(30);
    expect(s.clusters.high.n).toBe(30);
    expect(s.p50).toBeNull();
    expect(s.overall_p50).not.toBeNull();
  });

  it('leaves a unimodal (lognormal) sample unsplit', () => {
    const prng = createPrng(11);
    const values = Array.from({ length: 60 }, () => 100 * Math.exp(0.1 * Math.sqrt(-2 * Math.log(1 - prng.float())) * Math.cos(2 * Math.PI * prng.float())));
    expect(detectClusters(values).distribution).toBe('unsplit');
    expect(summarize(values).p50).not.toBeNull();
  });

  it('needs ≥ max(5, ⌈0.1·n⌉) samples on each side (edge: exactly 5 splits, 4 does not)', () => {
    const low = Array.from({ length: 16 }, (_, i) => 100 + i * 0.25);
    expect(detectClusters([...low, 200, 200.25, 200.5, 200.75, 201]).distribution).toBe('separated-clusters'); // n = 21, side 5
    expect(detectClusters([...low, 200, 200.25, 200.5, 200.75]).distribution).toBe('unsplit'); // n = 20, side 4
  });

  it('n = 60 needs 6 per side (edge: 6 splits, 5 does not)', () => {
    const high6 = [300, 300.25, 300.5, 300.75, 301, 301.25];
    expect(detectClusters([...Array.from({ length: 54 }, (_, i) => 100 + i * 0.25), ...high6]).distribution).toBe('separated-clusters');
    expect(detectClusters([...Array.from({ length: 55 }, (_, i) => 100 + i * 0.25), ...high6.slice(0, 5)]).distribution).toBe('unsplit');
  });

  it('gap must be ≥ 20% of the overall median (edge: exactly 20% splits)', () => {
    // n = 10 → only the middle gap is eligible. Overall median (9 + 11)/2 = 10, gap 2 = 20% of 10.
    // Median adjacent gap 0.25 (3× = 0.75 < 2); cluster medians 1.5 and 11.5 (ratio > 1.5).
    const low = [1, 1.25, 1.5, 1.75, 9];
    expect(detectClusters([...low, 11, 11.25, 11.5, 11.75, 12]).distribution).toBe('separated-clusters');
    // Gap 1.75 with overall median 9.875: 1.75 < 1.975 → unsplit.
    const result = detectClusters([...low, 10.75, 11.25, 11.5, 11.75, 12]);
    expect(result.distribution).toBe('unsplit');
    expect(result.distribution === 'unsplit' && result.reason).toMatch(/20% of median/);
  });

  it('gap must be > 3× the median adjacent gap (edge: exactly 3× does not split)', () => {
    // Gaps: low 1,1,1,6; split 3; high 1,1,1,14 → median gap 1, and 3 is not > 3. Overall median 11.5 → 20% = 2.3 ≤ 3.
    const low = [1, 2, 3, 4, 10];
    const atThreeTimes = detectClusters([...low, 13, 14, 15, 16, 30]);
    expect(atThreeTimes.distribution).toBe('unsplit');
    expect(atThreeTimes.distribution === 'unsplit' && atThreeTimes.reason).toMatch(/3× median gap/);
    // Split gap 3.25 (> 3), median gap still 1 → splits.
    expect(detectClusters([...low, 13.25, 14, 15, 16, 30]).distribution).toBe('separated-clusters');
  });

  it('cluster medians must differ by ≥ 1.5× (edge: exactly 1.5× splits)', () => {
    // Low median 8, high median 12 = 1.5 × 8; gap 2 = 20% of median 10; median gap 0.5 (3× = 1.5 < 2).
    const low = [7, 7.5, 8, 8.5, 9];
    expect(detectClusters([...low, 11, 11.5, 12, 12.5, 13]).distribution).toBe('separated-clusters');
    // High median 11.75 = 1.46875 × 8, every other condition unchanged → unsplit.
    const result = detectClusters([...low, 11, 11.5, 11.75, 12.5, 13]);
    expect(result.distribution).toBe('unsplit');
    expect(result.distribution === 'unsplit' && result.reason).toMatch(/1\.5×/);
  });

  it('a few slow outliers never become a cluster', () => {
    const values = [...Array.from({ length: 57 }, (_, i) => 100 + i * 0.25), 900, 950, 1000];
    expect(detectClusters(values).distribution).toBe('unsplit');
  });
});
