/**
 * Everything a report shows, taken from the bundle's one BundleAnalysis so the HTML, the markdown and
 * the CSVs agree number for number: the per-arm rows are the cells of summary.csv (summaryRow), the
 * comparisons are the cells of comparisons.csv (comparisonRow), the P50 CI is the analysis's own.
 * Nothing here computes a statistic.
 */
import {
  COMPARISONS_HEADER,
  comparisonRow,
  diagnosticsRow,
  DIAGNOSTICS_HEADER,
  SUMMARY_HEADER,
  summaryRow,
  type AnalyzedBundle,
  type ArmSummary,
  type ArmTrials,
  type Cell,
  type Table,
} from '../../harness/analyze/index.ts';
import type { KindLead } from '../../harness/analyze/kind-analysis.ts';
import type { MedianInterval } from '../../harness/stats/index.ts';
import { environmentSummary } from '../bundle/environment.ts';
import { methodWithoutSeed } from './format.ts';

/** A CSV row of the analysis as column → cell, so a report reads exactly what the file holds. */
function byColumn(header: readonly string[], cells: readonly Cell[]): Record<string, Cell> {
  return Object.fromEntries(header.map((h, i) => [h, cells[i]]));
}

const numberOrNull = (cell: Cell): number | null => (typeof cell === 'number' && Number.isFinite(cell) ? cell : null);

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
  primary: boolean;
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
  /** The analysis's multiplicity family (comparisons-detail.csv's family columns). */
  rankP: number | null;
  holmP: number | null;
  /** Null when the comparison drew no verdict. */
  survivesHolm: boolean | null;
}

/** The comparisons' family as the report states it: size, verdicts drawn, verdicts surviving Holm. */
export interface FamilySummary {
  label: string;
  size: number;
  verdicts: number;
  surviving: number;
}

export type FailureRow = ArmTrials;

export interface ReportModel {
  title: string;
  runId: string;
  specName: string;
  experiment: string;
  description: string | null;
  specSha: string | null;
  arms: string[];
  metrics: string[];
  primaryMetrics: string[];
  blocks: number | null;
  warmups: number | null;
  headline: HeadlineRow[];
  comparisons: ComparisonRow[];
  family: FamilySummary;
  failures: FailureRow[];
  diagnostics: Table | null;
  /** Tables the kind adds (density capacity). */
  kindTables: Table[];
  /** The kind's own lead (table + sentences), rendered before anything else; null for kinds without one. */
  kindLead: KindLead | null;
  /** Titles of the charts the kind adds, for the markdown's pointer to report.html. */
  kindCharts: string[];
  controls: [string, string][];
  environment: [string, string][];
  methods: string[];
  warnings: string[];
}

function headlineRow(s: ArmSummary, ctx: AnalyzedBundle['analysis']['context'], primary: readonly string[]): HeadlineRow {
  const cells = byColumn(SUMMARY_HEADER, summaryRow(ctx, s));
  const distribution = cells.distribution === 'separated-clusters' ? 'separated-clusters' : numberOrNull(cells.n) ? 'unsplit' : 'no data';
  return {
    arm: String(cells.backend),
    metric: String(cells.metric),
    unit: String(cells.unit ?? ''),
    planned: numberOrNull(cells.planned) ?? 0,
    failed: numberOrNull(cells.failed) ?? 0,
    n: numberOrNull(cells.n) ?? 0,
    p50: numberOrNull(cells.p50),
    p50Ci: s.medianCi,
    p95: numberOrNull(cells.p95_reference),
    min: numberOrNull(cells.minimum),
    max: numberOrNull(cells.maximum),
    distribution,
    clusters:
      distribution === 'separated-clusters'
        ? { lowN: numberOrNull(cells.low_n)!, lowP50: numberOrNull(cells.low_p50)!, highN: numberOrNull(cells.high_n)!, highP50: numberOrNull(cells.high_p50)! }
        : null,
    primary: primary.includes(String(cells.metric)),
  };
}

function comparisonRows(analyzed: AnalyzedBundle): ComparisonRow[] {
  const { analysis } = analyzed;
  return analysis.comparisons.map((o, i) => {
    const c = byColumn(COMPARISONS_HEADER, comparisonRow(analysis.context, o));
    const member = analysis.family.members[i];
    return {
      candidate: String(c.candidate),
      control: String(c.control),
      metric: String(c.metric),
      unit: String(c.unit ?? ''),
      n: String(c.n ?? ''),
      difference: numberOrNull(c.difference_ms),
      differenceLow: numberOrNull(c.ci95_low_ms),
      differenceHigh: numberOrNull(c.ci95_high_ms),
      ratio: numberOrNull(c.ratio),
      ratioLow: numberOrNull(c.ratio_ci95_low),
      ratioHigh: numberOrNull(c.ratio_ci95_high),
      conclusion: String(c.conclusion ?? ''),
      method: String(c.confidence_method ?? ''),
      rankP: member?.rankP ?? null,
      holmP: member?.holmP ?? null,
      survivesHolm: member?.survives ?? null,
    };
  });
}

/** The diagnostics columns a reader needs; the full table stays in diagnostics.csv. */
export const DIAGNOSTIC_COLUMNS = ['backend', 'metric', 'planned', 'failed', 'n', 'outliers_mad_z', 'drift_rho', 'drift_p', 'drift_warning', 'drift_holm_p', 'drift_survives_holm', 'cv', 'cv_warning', 'cluster_note', 'limitations'] as const;

/** Integers and text verbatim; long decimals rounded for reading (the CSV keeps full precision). */
function displayCell(cell: Cell): string {
  const text = cell === null || cell === undefined ? '' : String(cell);
  if (!/^-?\d+\.\d{5,}$/.test(text)) return text;
  const value = Number(text);
  return Math.abs(value) < 0.01 ? value.toPrecision(3) : formatNumber(value);
}

function formatNumber(value: number): string {
  const abs = Math.abs(value);
  return value.toFixed(abs >= 1000 ? 0 : abs >= 100 ? 1 : abs >= 10 ? 2 : abs >= 1 ? 3 : 4);
}

function diagnosticsTable(analyzed: AnalyzedBundle): Table | null {
  const { analysis } = analyzed;
  const measured = analysis.summaries.filter((s) => s.skipped === null);
  if (measured.length === 0) return null;
  const indices = DIAGNOSTIC_COLUMNS.map((c) => (DIAGNOSTICS_HEADER as readonly string[]).indexOf(c));
  return {
    caption: `Diagnostics (from diagnostics.csv: outliers flagged never removed, drift, variability; the ${analysis.driftFamily[0]?.size ?? 0} drift test(s) with n ≥ 10 are one Holm family)`,
    header: [...DIAGNOSTIC_COLUMNS],
    rows: measured.map((s) => {
      // The drift family of the results model, so the report's survival flags are diagnostics.csv's.
      const cells = diagnosticsRow(analysis.context, s, analysis.driftFamily[analysis.summaries.indexOf(s)]);
      return indices.map((i) => displayCell(cells[i]));
    }),
  };
}

/**
 * Block counts as planned: plan.json's, because a kind that repeats with a field of its own
 * (`rollout.blocks`, `rollout.warmup_blocks`, `density.batches`) leaves the generic `trials` and
 * `warmups` at their neutral values; the spec's for bundles whose plan predates the counts.
 */
function plannedBlocks(analyzed: AnalyzedBundle): { formal: number | null; warmups: number | null } {
  const spec = analyzed.resolved.spec;
  return { formal: analyzed.plan?.blocks ?? spec.trials ?? null, warmups: analyzed.plan?.warmup_blocks ?? spec.warmups ?? null };
}

function controlRows(analyzed: AnalyzedBundle): [string, string][] {
  const spec = analyzed.resolved.spec;
  const rows: [string, string][] = [];
  for (const [key, value] of Object.entries(spec.controls ?? {}).sort(([a], [b]) => a.localeCompare(b))) rows.push([`controls.${key}`, JSON.stringify(value)]);
  if (!spec.controls || Object.keys(spec.controls).length === 0) rows.push(['controls', 'none declared']);
  const blocks = plannedBlocks(analyzed);
  rows.push(['warm-up blocks (excluded from statistics)', String(blocks.warmups ?? '—')]);
  rows.push(['formal blocks (every arm once per block, shuffled)', String(blocks.formal ?? '—')]);
  rows.push(['schedule seed', String(spec.seed ?? '—')]);
  rows.push(['trial timeout (ms)', String(spec.timeout ?? '—')]);
  if (spec.image) rows.push(['task image inputs', JSON.stringify(spec.image)]);
  return rows;
}

function methodLines(analyzed: AnalyzedBundle, comparisons: ComparisonRow[]): string[] {
  const resamples = analyzed.resolved.spec.resamples ?? 5000;
  const lines = [
    'Only ok formal trials enter timing statistics; warmups are excluded; failed and invalid trials stay in every denominator (planned, failed).',
    'Percentiles: linear interpolation between order statistics (Hyndman & Fan type 7). P95 only when n ≥ 30 (reference only); no P99.',
    'Separated-cluster rule: when timings split into two well-separated clusters, low/high cluster medians are reported instead of a single P50.',
    'Per-arm P50 CI: distribution-free order-statistic (binomial) 95% interval of the median (Conover §3.2); none below n = 6.',
    `Comparisons: difference and ratio of medians with 95% bootstrap CIs (${resamples} resamples; paired-round over blocks), seeded PRNG whose seed derives from run_id:metric:arm; see each row's method.`,
    'Outliers are flagged (MAD z-score), never removed; drift is the rank correlation of value with schedule position (see the drift plots).',
  ];
  lines.push(
    "Multiplicity: the comparisons of one run are one family; their rank-test p-values (signed-rank when paired, Mann–Whitney otherwise) are Holm-adjusted together, and a verdict survives when its adjusted p < 0.05 (comparisons-detail.csv: rank_test_p, family, family_size, holm_p, verdict_survives_holm).",
  );
  const methods = [...new Set(comparisons.map((c) => methodWithoutSeed(c.method)).filter(Boolean))];
  for (const method of methods) lines.push(`Comparison method recorded in the bundle: ${method}`);
  return lines;
}

export function buildReportModel(analyzed: AnalyzedBundle): ReportModel {
  const { analysis } = analyzed;
  const spec = analyzed.resolved.spec;
  const comparisons = comparisonRows(analyzed);
  const warnings = [...analysis.warnings];
  if (!analyzed.environment) warnings.push('environment.json is absent: host facts and backend versions are unknown.');
  const recorded = analysis.trials.filter((t) => t.planned > 0);
  const blocks = plannedBlocks(analyzed);
  return {
    title: `sandbench report: ${spec.name}`,
    runId: analysis.runId,
    specName: spec.name,
    experiment: spec.experiment,
    description: typeof spec.description === 'string' ? spec.description : null,
    specSha: analyzed.resolved.spec_sha256 || null,
    arms: recorded.map((t) => t.arm),
    metrics: analysis.metrics,
    primaryMetrics: analysis.primaryMetrics,
    blocks: blocks.formal,
    warmups: blocks.warmups,
    // Arms skipped at preflight have no trials: they are in the warnings, not in the table.
    headline: analysis.summaries.filter((s) => s.skipped === null && s.data.planned > 0).map((s) => headlineRow(s, analysis.context, analysis.primaryMetrics)),
    comparisons,
    family: {
      label: analysis.family.label,
      size: analysis.family.size,
      verdicts: analysis.family.members.filter((m) => m.survives !== null).length,
      surviving: analysis.family.members.filter((m) => m.survives === true).length,
    },
    failures: recorded,
    diagnostics: diagnosticsTable(analyzed),
    kindTables: analysis.extras.tables,
    kindLead: analysis.extras.lead ?? null,
    kindCharts: analysis.extras.charts.map((c) => c.id),
    controls: controlRows(analyzed),
    environment: environmentSummary(analyzed),
    methods: methodLines(analyzed, comparisons),
    warnings: [...new Set(warnings)],
  };
}
