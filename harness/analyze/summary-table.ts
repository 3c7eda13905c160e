/** summary.csv (public contract) and diagnostics.csv (everything else a careful reader checks). */
import { drift, DRIFT_MIN_N, DRIFT_P_THRESHOLD, holmWithGaps, madOutliers, MAD_Z_THRESHOLD, medianOrderStatisticCi, summarize, variability, type Drift, type MedianInterval, type OutlierFlags, type Summary, type Variability } from '../stats/index.ts';
import type { ArmMetricData } from './arm-metric.ts';
import { sortedJson, type Cell } from '../bundle/csv.ts';

export const SUMMARY_HEADER = [
  'benchmark_id', 'batch', 'mode', 'backend', 'metric', 'unit', 'planned', 'failed', 'capability', 'n',
  'p50', 'p95_reference', 'minimum', 'maximum', 'distribution', 'low_n', 'low_p50', 'high_n', 'high_p50',
] as const;

export const DIAGNOSTICS_HEADER = [
  'batch', 'mode', 'backend', 'metric', 'unit', 'planned', 'failed', 'failure_categories', 'n', 'ok_without_metric',
  'mean', 'mad', 'overall_p50', 'outliers_mad_z', 'outlier_rule', 'drift_rho', 'drift_p', 'drift_warning',
  'cv', 'cv_warning', 'cluster_note', 'limitations', 'drift_family_size', 'drift_holm_p', 'drift_survives_holm',
] as const;

export interface TableContext {
  benchmark_id: string;
  batch: string;
  mode: string;
}

/** What a careful reader checks beside the P50 (diagnostics.csv and the report's diagnostics table). */
export interface ArmDiagnostics {
  outliers: OutlierFlags;
  outlierRule: string;
  drift: Drift | null;
  variability: Variability | null;
  clusterNote: string | null;
}

export interface ArmMetricSummary {
  data: ArmMetricData;
  summary: Summary;
  /** Distribution-free 95% CI of the P50 (order statistics); null below n = 6 or when there is no single P50. */
  medianCi: MedianInterval | null;
  diagnostics: ArmDiagnostics;
}

export function summarizeArmMetric(data: ArmMetricData): ArmMetricSummary {
  // One value per unit of replication: a per-step or per-cell figure copied onto each attempt's record
  // is one observation, so its P50 interval comes from the steps or cells, never from the copies.
  const units = data.replicates ?? data.observations;
  const values = units.map((o) => o.value);
  const summary = summarize(values, data.failed);
  const outliers = madOutliers(values);
  const clusterNote =
    summary.clusters === null ? null : summary.clusters.distribution === 'unsplit' ? summary.clusters.reason : `split between ${summary.clusters.split_between[0]} and ${summary.clusters.split_between[1]} (gap ${summary.clusters.gap})`;
  return {
    data,
    summary,
    medianCi: summary.p50 === null ? null : medianOrderStatisticCi(values),
    diagnostics: {
      outliers,
      outlierRule: outliers.count === null && summary.n > 0 ? 'MAD = 0: modified z-score undefined' : `|0.6745·(x − median)/MAD| > ${MAD_Z_THRESHOLD} (flagged, kept)`,
      drift: drift(values, units.map((o) => o.position)),
      variability: variability(values),
      clusterNote,
    },
  };
}

export function summaryRow(ctx: TableContext, { data, summary: s }: ArmMetricSummary): Cell[] {
  const split = s.clusters?.distribution === 'separated-clusters' ? s.clusters : null;
  return [
    ctx.benchmark_id,
    ctx.batch,
    ctx.mode,
    data.arm,
    data.metric,
    data.unit,
    data.planned,
    data.failed,
    s.n > 0 ? 'measured' : 'unavailable',
    s.n,
    s.p50,
    s.p95,
    s.min,
    s.max,
    s.clusters?.distribution ?? null,
    split?.low.n ?? null,
    split?.low.p50 ?? null,
    split?.high.n ?? null,
    split?.high.p50 ?? null,
  ];
}

/**
 * The drift tests of one run are one family (every arm × metric with n ≥ DRIFT_MIN_N): Holm-adjusted
 * p-values, and whether each drift flag survives at DRIFT_P_THRESHOLD.
 */
export function driftFamily(summaries: readonly ArmMetricSummary[]): Map<ArmMetricSummary, { holmP: number | null; size: number }> {
  const ps = summaries.map((x) => (x.diagnostics.drift && x.summary.n >= DRIFT_MIN_N ? x.diagnostics.drift.p : null));
  const adjusted = holmWithGaps(ps);
  const size = ps.filter((p) => p !== null).length;
  return new Map(summaries.map((x, i) => [x, { holmP: adjusted[i] ?? null, size }]));
}

export function diagnosticsRow(ctx: TableContext, { data, summary: s, diagnostics: d }: ArmMetricSummary, member?: { holmP: number | null; size: number }): Cell[] {
  const { outliers, drift: trend, variability: spread, clusterNote } = d;
  return [
    ctx.batch,
    ctx.mode,
    data.arm,
    data.metric,
    data.unit,
    data.planned,
    data.failed,
    sortedJson(data.failureCategories),
    s.n,
    data.okWithoutMetric,
    s.mean,
    s.mad,
    s.overall_p50,
    outliers.count,
    d.outlierRule,
    trend?.rho ?? null,
    trend?.p ?? null,
    trend?.drifting ?? null,
    spread?.cv ?? null,
    spread?.warning ?? null,
    clusterNote,
    data.limitations.join('; '),
    member?.size ?? null,
    member?.holmP ?? null,
    trend?.drifting && member?.holmP !== null && member?.holmP !== undefined ? member.holmP < DRIFT_P_THRESHOLD : null,
  ];
}
