/**
 * The separated-cluster rule of the published study: a bimodal timing sample (e.g. a cache that is
 * sometimes cold) has no meaningful single P50, so it is reported as two clusters instead.
 * Split at the largest adjacent gap whose sides both hold ≥ max(5, ⌈0.1·n⌉) samples, and only if
 *   - the gap is ≥ 20% of the overall median (an absolute separation, not noise),
 *   - the gap is > 3× the median adjacent gap (it stands out from the sample's own spacing),
 *   - the cluster medians differ by ≥ 1.5× (two distinct operating points).
 * The thresholds are the study's; keeping them identical is what makes reproduced rows comparable.
 */
import { quantileSorted, sortedAscending } from './quantile.ts';

/** Each side must hold at least this many samples: max(5, ⌈0.1·n⌉). */
export function minimumClusterSize(n: number): number {
  return Math.max(5, Math.ceil(0.1 * n));
}

export const CLUSTER_GAP_MEDIAN_FRACTION = 0.2;
export const CLUSTER_GAP_SPACING_FACTOR = 3;
export const CLUSTER_MEDIAN_RATIO = 1.5;

export interface ClusterSide {
  n: number;
  p50: number;
  min: number;
  max: number;
}

export type ClusterResult =
  | { distribution: 'unsplit'; reason: string }
  | { distribution: 'separated-clusters'; low: ClusterSide; high: ClusterSide; gap: number; split_between: [number, number] };

function side(sorted: Float64Array): ClusterSide {
  return { n: sorted.length, p50: quantileSorted(sorted, 0.5), min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

export function detectClusters(values: ArrayLike<number>): ClusterResult {
  const sorted = sortedAscending(values);
  const n = sorted.length;
  const minSide = minimumClusterSize(n);
  if (n < 2 * minSide) return { distribution: 'unsplit', reason: `n=${n} < ${2 * minSide} (two clusters of ≥ ${minSide})` };
  const gaps = new Float64Array(n - 1);
  for (let i = 0; i < n - 1; i++) gaps[i] = sorted[i + 1]! - sorted[i]!;
  // Largest eligible gap; the first one wins a tie so the choice is deterministic.
  let best = -1;
  for (let i = minSide - 1; i <= n - 1 - minSide; i++) if (best < 0 || gaps[i]! > gaps[best]!) best = i;
  const gap = gaps[best]!;
  const overallMedian = quantileSorted(sorted, 0.5);
  const medianGap = quantileSorted(Float64Array.from(gaps).sort(), 0.5);
  if (!(gap >= CLUSTER_GAP_MEDIAN_FRACTION * overallMedian)) return { distribution: 'unsplit', reason: `largest gap ${gap} < 20% of median ${overallMedian}` };
  if (!(gap > CLUSTER_GAP_SPACING_FACTOR * medianGap)) return { distribution: 'unsplit', reason: `largest gap ${gap} ≤ 3× median gap ${medianGap}` };
  const low = side(sorted.subarray(0, best + 1));
  const high = side(sorted.subarray(best + 1));
  if (!(low.p50 > 0 && high.p50 >= CLUSTER_MEDIAN_RATIO * low.p50)) {
    return { distribution: 'unsplit', reason: `cluster medians ${low.p50} and ${high.p50} differ by < 1.5×` };
  }
  return { distribution: 'separated-clusters', low, high, gap, split_between: [sorted[best]!, sorted[best + 1]!] };
}
