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
export { MIN_PAIRS, minimumPairsFor, minimumSignedRankP, belowMinimum, insufficientNote, INSUFFICIENT_DATA, SIGNIFICANCE_LEVEL } from './minimum-n.ts';
export { undefinedRatioReason } from './ratio.ts';
export { coarseResolution, COARSE_DISTINCT_FRACTION } from './resolution.ts';
export { splitmix64, BOOTSTRAP_PRNG_NAME } from './index-sampler.ts';
export { holm, holmWithGaps, benjaminiHochberg } from './multiplicity.ts';
export { stratifiedBootstrap, type Stratum, type StratifiedEstimate } from './stratified-bootstrap.ts';
export { estimateRatioGate, decideCell, GATE_STATISTICS, STATISTIC_P, STATISTIC_MIN_N, type GateStatistic, type GateDesign, type RunVariance, type RatioGateInput, type RatioGateEstimate, type CellDecision } from './ratio-gate.ts';
export { blocksNeeded, predictedPower, effectDistance, seFromLogInterval, replicateSe, MEDIAN_SE_FACTOR, Z_975 } from './power.ts';
export { studentTCdf, studentTQuantile } from './student-t.ts';
export { pairedLogRatioReplicates, independentLogRatioReplicates, hierarchicalLogRatioReplicates, betweenRunVariance, logStatistic, quantileFromCounts } from './quantile-bootstrap.ts';
export { seedFromString } from './bootstrap.ts';
export { wilsonInterval } from './wilson.ts';
export { mcnemarExactP, newcombePairedInterval, pairedTable, comparePairedProportions } from './paired-proportions.ts';
export { comparePairedMeans } from './paired-means.ts';
export { comparePairedScores, isBinary, type PairedScoreComparison, type PairedTable, type ScoreConclusion } from './paired-score.ts';
