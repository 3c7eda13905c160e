import { describe, expect, it } from 'vitest';
import { detectClusters, minimumClusterSize, summarize } from '../../../harness/stats/index.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

function gaussianSource(seed: number): () => number {
  const prng = createPrng(seed);
  return () => Math.sqrt(-2 * Math.log(1 - prng.float())) * Math.cos(2 * Math.PI * prng.float());
}

describe('separated-cluster rule (log scale, gap / pooled within-side sd > 2, medians ≥ 1.5× apart)', () => {
  it('minimum cluster size is max(3, ⌈0.1·n⌉)', () => {
    expect(minimumClusterSize(6)).toBe(3);
    expect(minimumClusterSize(30)).toBe(3);
    expect(minimumClusterSize(31)).toBe(4);
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
    expect(s.clusters.scale).toBe('log');
    expect(s.p50).toBeNull();
    expect(s.overall_p50).not.toBeNull();
  });

  it('score edge on the raw scale (a value ≤ 0): gap / pooled sd exactly 2 does not split, 2.25 does', () => {
    // n = 6 → only the middle split is eligible; each side {0,1,2}-shaped has SS = 2, pooled sd = √(4/4) = 1.
    const atTwo = detectClusters([0, 1, 2, 4, 5, 6]);
    expect(atTwo.distribution).toBe('unsplit');
    expect(atTwo.distribution === 'unsplit' && atTwo.reason).toMatch(/separation 2\.00 ≤ 2 \(raw-scale/);
    const above = detectClusters([0, 1, 2, 4.25, 5.25, 6.25]);
    expect(above.distribution).toBe('separated-clusters');
    expect(above.distribution === 'separated-clusters' && above.scale).toBe('raw');
  });

  it('needs ≥ 3 values per side at n ≤ 30 (edge: 3 splits, 2 does not)', () => {
    const low = Array.from({ length: 17 }, (_, i) => 100 + i * 0.25);
    expect(detectClusters([...low, 300, 300.25, 300.5]).distribution).toBe('separated-clusters');
    expect(detectClusters([...low, 100, 300, 300.25]).distribution).toBe('unsplit');
  });

  it('cluster medians must differ by ≥ 1.5× (edge: exactly 1.5× splits)', () => {
    // Constant sides: pooled sd 0, so the separation score is infinite and only the medians decide.
    expect(detectClusters([10, 10, 10, 15, 15, 15]).distribution).toBe('separated-clusters');
    const below = detectClusters([10, 10, 10, 14.75, 14.75, 14.75]);
    expect(below.distribution).toBe('unsplit');
    expect(below.distribution === 'unsplit' && below.reason).toMatch(/differ by < 1.5×/);
  });

  it('a few slow outliers never become a cluster', () => {
    const values = [...Array.from({ length: 58 }, (_, i) => 100 + i * 0.25), 400, 420];
    expect(detectClusters(values).distribution).toBe('unsplit');
  });

  // The two stated operating characteristics (harness/stats/README.md), at a fixed seed: each fails if the rule regresses.
  it('false splits ≤ 5% on unimodal lognormal σ = 0.5 at n = 20, 30 and 60 (300 arms each)', () => {
    const g = gaussianSource(2026);
    for (const n of [20, 30, 60]) {
      let split = 0;
      for (let d = 0; d < 300; d++) if (detectClusters(Array.from({ length: n }, () => 100 * Math.exp(0.5 * g()))).distribution === 'separated-clusters') split++;
      expect(split / 300, `n=${n}`).toBeLessThanOrEqual(0.05);
    }
  });

  it('flags ≥ 90% of 70/30 mixtures whose modes are 2.2× apart (σ = 0.1 per mode) at n = 20, 30 and 60', () => {
    const g = gaussianSource(13);
    const prng = createPrng(14);
    for (const n of [20, 30, 60]) {
      let split = 0;
      for (let d = 0; d < 300; d++) {
        const values = Array.from({ length: n }, () => 100 * Math.exp(0.1 * g()) * (prng.float() < 0.3 ? 2.2 : 1));
        if (detectClusters(values).distribution === 'separated-clusters') split++;
      }
      expect(split / 300, `n=${n}`).toBeGreaterThanOrEqual(0.9);
    }
  });
});
