/** summary.csv (public contract) and diagnostics.csv (everything else a careful reader checks). */
import { drift, madOutliers, MAD_Z_THRESHOLD, summarize, variability, type Summary } from '../stats/index.ts';
import type { ArmMetricData } from './arm-metric.ts';
import { sortedJson, type Cell } from './csv.ts';

export const SUMMARY_HEADER = [
  'benchmark_id', 'batch', 'mode', 'backend', 'metric', 'unit', 'planned', 'failed', 'capability', 'n',
  'p50', 'p95_reference', 'minimum', 'maximum', 'distribution', 'low_n', 'low_p50', 'high_n', 'high_p50',
] as const;

export const DIAGNOSTICS_HEADER = [
  'batch', 'mode', 'backend', 'metric', 'unit', 'planned', 'failed', 'failure_categories', 'n', 'ok_without_metric',
  'mean', 'mad', 'overall_p50', 'outliers_mad_z', 'outlier_rule', 'drift_rho', 'drift_p', 'drift_warning',
  'cv', 'cv_warning', 'cluster_note', 'limitations',
] as const;

export interface TableContext {
  benchmark_id: string;
  batch: string;
  mode: string;
}

export interface ArmMetricSummary {
  data: ArmMetricData;
  summary: Summary;
}

export function summarizeArmMetric(data: ArmMetricData): ArmMetricSummary {
  return { data, summary: summarize(data.observations.map((o) => o.value), data.failed) };
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

export function diagnosticsRow(ctx: TableContext, { data, summary: s }: ArmMetricSummary): Cell[] {
  const values = data.observations.map((o) => o.value);
  const outliers = madOutliers(values);
  const trend = drift(values, data.observations.map((o) => o.position));
  const spread = variability(values);
  const clusterNote = s.clusters === null ? null : s.clusters.distribution === 'unsplit' ? s.clusters.reason : `split between ${s.clusters.split_between[0]} and ${s.clusters.split_between[1]} (gap ${s.clusters.gap})`;
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
    outliers.count === null && s.n > 0 ? 'MAD = 0: modified z-score undefined' : `|0.6745·(x − median)/MAD| > ${MAD_Z_THRESHOLD} (flagged, kept)`,
    trend?.rho ?? null,
    trend?.p ?? null,
    trend?.drifting ?? null,
    spread?.cv ?? null,
    spread?.warning ?? null,
    clusterNote,
    data.limitations.join('; '),
  ];
}
