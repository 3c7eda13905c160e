/** Descriptive summary of one arm and metric: what summary.csv prints. */
import { mean as ssMean, medianAbsoluteDeviation } from 'simple-statistics';
import { detectClusters, type ClusterResult } from './clusters.ts';
import { quantileSorted, sortedAscending } from './quantile.ts';

/** P95 only from 30 samples on: below that it is an extrapolation from one or two points (study protocol). */
export const P95_MIN_N = 30;

export interface Summary {
  n: number;
  failed: number;
  /** Null when n = 0 or when the distribution is separated (no single P50 then). */
  p50: number | null;
  p95: number | null;
  min: number | null;
  max: number | null;
  mean: number | null;
  /** Raw median absolute deviation (unscaled). */
  mad: number | null;
  clusters: ClusterResult | null;
  /** P50 of the whole sample even when split, for diagnostics only. */
  overall_p50: number | null;
}

export function summarize(values: readonly number[], failed = 0): Summary {
  const n = values.length;
  if (n === 0) return { n, failed, p50: null, p95: null, min: null, max: null, mean: null, mad: null, clusters: null, overall_p50: null };
  const sorted = sortedAscending(values);
  const clusters = detectClusters(sorted);
  const overall = quantileSorted(sorted, 0.5);
  return {
    n,
    failed,
    p50: clusters.distribution === 'unsplit' ? overall : null,
    p95: n >= P95_MIN_N ? quantileSorted(sorted, 0.95) : null,
    min: sorted[0]!,
    max: sorted[n - 1]!,
    mean: ssMean(values as number[]),
    mad: medianAbsoluteDeviation(values as number[]),
    clusters,
    overall_p50: overall,
  };
}
