/**
 * Everything a report shows, computed once from a bundle so the HTML and markdown renderings agree
 * number for number. Per-arm summaries come from the journal through harness/stats `summarize`
 * (the function analyze uses); comparisons come from the bundle's comparisons.csv, never recomputed.
 */
import { summarize } from '../../harness/stats/index.ts';
import { INFRASTRUCTURE_FAILURES, type FailureCategory } from '../../harness/journal/trial-record.ts';
import { num, type CsvTable } from '../bundle/csv.ts';
import { environmentSummary } from '../bundle/environment.ts';
import { medianOrderStatisticCi, type MedianInterval } from '../../harness/stats/index.ts';
import type { Bundle } from '../bundle/read-bundle.ts';
import { armCounts, armOrder, groupLabel, metricNames, metricUnit, reportMetricOrder, samplesFor, type ArmCounts } from '../bundle/samples.ts';

export interface HeadlineRow {
  arm: string;
  metric: string;
  unit: string;
  planned: number;
  failed: number;
  n: number;
  p50: number | null;
  p50Ci: MedianInterval | null;
  p95: number | null;
  min: number | null;
  max: number | null;
  distribution: 'unsplit' | 'separated-clusters' | 'no data';
  clusters: { lowN: number; lowP50: number; highN: number; highP50: number } | null;
}

export interface ComparisonRow {
  candidate: string;
  control: string;
  metric: string;
  unit: string;
  n: string;
  difference: number | null;
  differenceLow: number | null;
  differenceHigh: number | null;
  ratio: number | null;
  ratioLow: number | null;
  ratioHigh: number | null;
  conclusion: string;
  method: string;
}

export interface FailureRow extends ArmCounts {
  arm: string;
  infrastructure: number;
  task: number;
}

export interface ReportModel {
  title: string;
  runId: string;
  specName: string;
  experiment: string;
  description: string | null;
  specSha: string | null;
  arms: string[];
  metrics: string[];
  blocks: number | null;
  warmups: number | null;
  headline: HeadlineRow[];
  comparisons: ComparisonRow[];
  comparisonsSource: string;
  failures: FailureRow[];
  diagnostics: CsvTable | null;
  densitySummary: CsvTable | null;
  controls: [string, string][];
  environment: [string, string][];
  methods: string[];
  warnings: string[];
}

function headlineRows(bundle: Bundle, arms: string[], metrics: string[]): HeadlineRow[] {
  const rows: HeadlineRow[] = [];
  for (const metric of metrics) {
    for (const arm of arms) {
      const counts = armCounts(bundle.journal, arm);
      if (counts.planned === 0) continue;
      const values = samplesFor(bundle.journal, metric, arm).map((s) => s.value);
      const summary = summarize(values, counts.failed);
      const clusters = summary.clusters?.distribution === 'separated-clusters' ? summary.clusters : null;
      rows.push({
        arm,
        metric,
        unit: metricUnit(metric),
        planned: counts.planned,
        failed: counts.failed,
        n: summary.n,
        p50: summary.p50,
        p50Ci: summary.p50 === null ? null : medianOrderStatisticCi(values),
        p95: summary.p95,
        min: summary.min,
        max: summary.max,
        distribution: summary.n === 0 ? 'no data' : clusters ? 'separated-clusters' : 'unsplit',
        clusters: clusters ? { lowN: clusters.low.n, lowP50: clusters.low.p50, highN: clusters.high.n, highP50: clusters.high.p50 } : null,
      });
    }
  }
  return rows;
}

function comparisonRows(table: CsvTable | null): ComparisonRow[] {
  if (!table) return [];
  return table.rows.map((r) => ({
    candidate: r.candidate ?? '',
    control: r.control ?? '',
    metric: r.metric ?? '',
    unit: r.unit ?? '',
    n: r.n ?? '',
    difference: num(r.difference_ms),
    differenceLow: num(r.ci95_low_ms),
    differenceHigh: num(r.ci95_high_ms),
    ratio: num(r.ratio),
    ratioLow: num(r.ratio_ci95_low),
    ratioHigh: num(r.ratio_ci95_high),
    conclusion: r.conclusion ?? '',
    method: r.confidence_method ?? '',
  }));
}

function failureRows(bundle: Bundle, arms: string[]): FailureRow[] {
  return arms.map((arm) => {
    const counts = armCounts(bundle.journal, arm);
    let infrastructure = 0;
    let task = 0;
    for (const [category, count] of Object.entries(counts.byCategory)) {
      if (INFRASTRUCTURE_FAILURES.has(category as FailureCategory)) infrastructure += count;
      else task += count;
    }
    return { arm, ...counts, infrastructure, task };
  });
}

function controlRows(bundle: Bundle): [string, string][] {
  const spec = bundle.resolved.spec;
  const rows: [string, string][] = [];
  for (const [key, value] of Object.entries(spec.controls ?? {}).sort(([a], [b]) => a.localeCompare(b))) rows.push([`controls.${key}`, JSON.stringify(value)]);
  if (!spec.controls || Object.keys(spec.controls).length === 0) rows.push(['controls', 'none declared']);
  rows.push(['warmups per arm (excluded from statistics)', String(spec.warmups ?? '—')]);
  rows.push(['formal blocks (every arm once per block, shuffled)', String(spec.trials ?? '—')]);
  rows.push(['schedule seed', String(spec.seed ?? '—')]);
  rows.push(['trial timeout (ms)', String(spec.timeout ?? '—')]);
  if (spec.image) rows.push(['task image inputs', JSON.stringify(spec.image)]);
  return rows;
}

function methodLines(bundle: Bundle, comparisons: ComparisonRow[]): string[] {
  const resamples = bundle.resolved.spec.resamples ?? 5000;
  const lines = [
    'Only ok formal trials enter timing statistics; warmups are excluded; failed and invalid trials stay in every denominator (planned, failed).',
    'Percentiles: linear interpolation between order statistics (Hyndman & Fan type 7). P95 only when n ≥ 30 (reference only); no P99.',
    'Separated-cluster rule: when timings split into two well-separated clusters, low/high cluster medians are reported instead of a single P50.',
    'Per-arm P50 CI: distribution-free order-statistic (binomial) 95% interval of the median (Conover §3.2); none below n = 6.',
    `Comparisons: difference and ratio of medians with 95% bootstrap CIs (${resamples} resamples; paired-round over blocks), seeded PRNG whose seed derives from run_id:metric:arm; see each row's method.`,
    'Outliers are flagged (MAD z-score), never removed; drift is the rank correlation of value with schedule position (see the drift plots).',
  ];
  const methods = [...new Set(comparisons.map((c) => c.method).filter(Boolean))];
  for (const method of methods) lines.push(`Comparison method recorded in the bundle: ${method}`);
  return lines;
}

export function buildReportModel(bundle: Bundle): ReportModel {
  const spec = bundle.resolved.spec;
  const recorded = new Set(bundle.journal.filter((r) => !r.warmup).map(groupLabel));
  const allArms = armOrder(spec.arms, bundle.journal);
  const arms = allArms.filter((a) => recorded.has(a));
  // A spec arm with no trial is news (skipped backend, crashed run) unless the kind records its own arms (lazy-image: full:cold...).
  const specLabels = spec.arms.map((a) => (a.variant ? `${a.backend}:${a.variant}` : a.backend));
  const kindUsesSpecArms = bundle.journal.some((r) => specLabels.includes(`${r.arm.variant ? `${r.arm.backend}:${r.arm.variant}` : r.arm.backend}`));
  const metrics = reportMetricOrder(metricNames(bundle.journal));
  const comparisons = comparisonRows(bundle.comparisons);
  const warnings: string[] = [];
  if (kindUsesSpecArms) for (const a of allArms.filter((l) => !recorded.has(l))) warnings.push(`Arm ${a} has no formal trial in the journal (backend skipped as unavailable, or the run stopped early).`);
  if (bundle.journalWarning) warnings.push(bundle.journalWarning);
  if (bundle.journal.length === 0) warnings.push('The journal has no trials: nothing was measured.');
  if (!bundle.comparisons) warnings.push('comparisons.csv is absent: no comparison was analysed for this bundle.');
  if (!bundle.environment) warnings.push('environment.json is absent: host facts and backend versions are unknown.');
  if (bundle.plan) {
    const planned = bundle.plan.trials.filter((t) => !t.warmup).length;
    const recorded = bundle.journal.filter((r) => !r.warmup).length;
    if (recorded < planned) warnings.push(`Incomplete run: ${recorded} of ${planned} planned formal trials are in the journal.`);
  }
  const headline = headlineRows(bundle, arms, metrics);
  for (const row of headline) if (row.failed > 0) warnings.push(`${row.arm} ${row.metric}: ${row.failed} of ${row.planned} formal trials failed or were invalid.`);
  return {
    title: `sandbench report: ${spec.name}`,
    runId: bundle.resolved.run_id,
    specName: spec.name,
    experiment: spec.experiment,
    description: spec.description ?? null,
    specSha: bundle.resolved.spec_sha256 ?? null,
    arms,
    metrics,
    blocks: spec.trials ?? null,
    warmups: spec.warmups ?? null,
    headline,
    comparisons,
    comparisonsSource: bundle.comparisons ? 'comparisons.csv' : 'none',
    failures: failureRows(bundle, arms),
    diagnostics: bundle.diagnostics,
    densitySummary: bundle.densitySummary,
    controls: controlRows(bundle),
    environment: environmentSummary(bundle),
    methods: methodLines(bundle, comparisons),
    warnings: [...new Set(warnings)],
  };
}
