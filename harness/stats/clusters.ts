/**
 * Separated clusters: a bimodal timing sample (e.g. a cache that is sometimes cold) has no
 * meaningful single P50, so it is reported as two clusters instead.
 *
 * Timings are multiplicative, so the rule works on log values (raw values when any is ≤ 0). For
 * every split point leaving ≥ max(3, ⌈0.1·n⌉) values on each side it computes the separation score
 *   gap between the two sides / pooled within-side standard deviation,
 * takes the split with the largest score, and calls the sample separated only if
 *   - the score is > 2 (the gap is wider than two within-cluster standard deviations), and
 *   - the cluster medians differ by ≥ 1.5× (two distinct operating points, not a coarse timer).
 * The study's original rule (raw-scale gap ≥ 20% of the median and > 3× the median gap) split
 * 20–42% of unimodal lognormal σ = 0.4–0.5 arms at n = 20–30 (issue 13, D3). Measured rates of
 * this rule are in harness/stats/README.md and come from `npm run bench -- stats-oc`.
 */
import { quantileSorted, sortedAscending } from './quantile.ts';

/** Each side must hold at least this many samples: max(3, ⌈0.1·n⌉). */
export function minimumClusterSize(n: number): number {
  return Math.max(CLUSTER_MIN_SIDE, Math.ceil(0.1 * n));
}

export const CLUSTER_MIN_SIDE = 3;
/** Gap / pooled within-side sd above which two sides count as separated. */
export const CLUSTER_SEPARATION_SCORE = 2;
export const CLUSTER_MEDIAN_RATIO = 1.5;

export interface ClusterSide {
  n: number;
  p50: number;
  min: number;
  max: number;
}

export type ClusterResult =
  | { distribution: 'unsplit'; reason: string }
  | { distribution: 'separated-clusters'; low: ClusterSide; high: ClusterSide; gap: number; split_between: [number, number]; score: number; scale: 'log' | 'raw' };

function side(sorted: Float64Array): ClusterSide {
  return { n: sorted.length, p50: quantileSorted(sorted, 0.5), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export interface BestSplit {
  /** Last index of the low side in the sorted sample. */
  index: number;
  score: number;
}

/** The split with the largest gap / pooled-sd score over x (sorted ascending); prefix sums keep it O(n). */
export function bestSeparation(x: ArrayLike<number>, minSide: number): BestSplit | null {
  const n = x.length;
  if (n < 2 * minSide) return null;
  const sum = new Float64Array(n + 1);
  const sumSq = new Float64Array(n + 1);
  // Centre first: sums of squares of raw timings in the 1e6 range would lose digits.
  const centre = x[n >> 1]!;
  for (let i = 0; i < n; i++) {
    const v = x[i]! - centre;
    sum[i + 1] = sum[i]! + v;
    sumSq[i + 1] = sumSq[i]! + v * v;
  }
  const squares = (from: number, to: number) => {
    const m = to - from;
    const s = sum[to]! - sum[from]!;
    return Math.max(0, sumSq[to]! - sumSq[from]! - (s * s) / m);
  };
  let best: BestSplit | null = null;
  for (let i = minSide - 1; i <= n - 1 - minSide; i++) {
    const gap = x[i + 1]! - x[i]!;
    const pooled = Math.sqrt((squares(0, i + 1) + squares(i + 1, n)) / (n - 2));
    // Both sides constant: any positive gap is infinitely separated (the medians test then decides).
    const score = pooled > 0 ? gap / pooled : gap > 0 ? Infinity : 0;
    // The first split wins a tie, so the choice is deterministic.
    if (!best || score > best.score) best = { index: i, score };
  }
  return best;
}

export function detectClusters(values: ArrayLike<number>): ClusterResult {
  const sorted = sortedAscending(values);
  const n = sorted.length;
  const minSide = minimumClusterSize(n);
  if (n < 2 * minSide) return { distribution: 'unsplit', reason: `n=${n} < ${2 * minSide} (two clusters of ≥ ${minSide})` };
  const scale = sorted[0]! > 0 ? 'log' : 'raw';
  const x = scale === 'log' ? sorted.map(Math.log) : sorted;
  const best = bestSeparation(x, minSide)!;
  const score = best.score;
  if (!(score > CLUSTER_SEPARATION_SCORE)) {
    return { distribution: 'unsplit', reason: `largest separation ${score.toFixed(2)} ≤ ${CLUSTER_SEPARATION_SCORE} (${scale}-scale gap / pooled within-side sd)` };
  }
  const low = side(sorted.subarray(0, best.index + 1));
  const high = side(sorted.subarray(best.index + 1));
  if (!(low.p50 > 0 && high.p50 >= CLUSTER_MEDIAN_RATIO * low.p50)) {
    return { distribution: 'unsplit', reason: `cluster medians ${low.p50} and ${high.p50} differ by < ${CLUSTER_MEDIAN_RATIO}×` };
  }
  const gap = sorted[best.index + 1]! - sorted[best.index]!;
  return { distribution: 'separated-clusters', low, high, gap, split_between: [sorted[best.index]!, sorted[best.index + 1]!], score, scale };
}
