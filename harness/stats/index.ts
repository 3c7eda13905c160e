/** harness/stats: pure statistics — arrays and seeds in, plain objects out. No I/O, no executors. */
export { quantile, quantileSorted, median, sortedAscending } from './quantile.ts';
export { summarize, P95_MIN_N, type Summary } from './summary.ts';
export { detectClusters, minimumClusterSize, type ClusterResult, type ClusterSide } from './clusters.ts';
export { madOutliers, drift, variability, MAD_Z_THRESHOLD, CV_WARNING_THRESHOLD, DRIFT_P_THRESHOLD, DRIFT_MIN_N, type OutlierFlags, type Drift, type Variability } from './diagnostics.ts';
export { mannWhitneyU, wilcoxonSignedRank, type RankTestResult } from './rank-tests.ts';
export { hodgesLehmannShift, hodgesLehmannPaired } from './hodges-lehmann.ts';
export { percentileInterval, bcaInterval, jackknifeAcceleration, pairedReplicates, unpairedReplicates } from './bootstrap.ts';
export { normalCdf, normalQuantile } from './normal.ts';
export { medianOrderStatisticCi, type MedianInterval } from './median-ci.ts';
export {
  compareMedians,
  DEFAULT_UNDERPOWERED_FRACTION,
  type MedianComparisonInput,
  type MedianComparison,
  type ComparisonConclusion,
  type Interval,
} from './compare.ts';
