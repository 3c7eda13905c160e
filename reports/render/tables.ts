/** The report's tables as plain rows, rendered identically to HTML and markdown. */
import type { CsvTable } from '../bundle/csv.ts';
import { fmt, fmtInterval, fmtRatio } from './format.ts';
import type { ComparisonRow, FailureRow, HeadlineRow, ReportModel } from './report-model.ts';

export interface Table {
  caption: string;
  header: string[];
  rows: string[][];
}

function p50Cell(row: HeadlineRow): string {
  if (row.distribution === 'no data') return '— (no ok trials)';
  if (row.clusters) {
    const c = row.clusters;
    return `— separated clusters: low n=${c.lowN} P50 ${fmt(c.lowP50)}, high n=${c.highN} P50 ${fmt(c.highP50)}`;
  }
  const ci = row.p50Ci ? ` ${fmtInterval(row.p50Ci.low, row.p50Ci.high)}` : ' (n < 6: no 95% CI)';
  return `${fmt(row.p50)}${ci}`;
}

export function headlineTable(rows: readonly HeadlineRow[]): Table {
  return {
    caption: 'Per-arm results (ok formal trials; P50 with 95% order-statistic CI)',
    header: ['arm', 'metric', 'unit', 'n ok / planned', 'failed', 'P50 [95% CI]', 'P95 (ref., n ≥ 30)', 'min', 'max', 'distribution'],
    rows: rows.map((r) => [r.arm, r.metric, r.unit || '—', `${r.n} / ${r.planned}`, String(r.failed), p50Cell(r), fmt(r.p95), fmt(r.min), fmt(r.max), r.distribution]),
  };
}

export function comparisonTable(rows: readonly ComparisonRow[], caption = 'Comparisons (candidate vs control)'): Table {
  return {
    caption,
    header: ['candidate', 'control', 'metric', 'n', 'difference of medians [95% CI]', 'ratio [95% CI]', 'conclusion', 'method'],
    rows: rows.map((c) => [
      c.candidate,
      c.control,
      c.metric,
      c.n,
      `${fmt(c.difference, c.unit)} ${fmtInterval(c.differenceLow, c.differenceHigh)}`,
      `${fmtRatio(c.ratio)} ${fmtInterval(c.ratioLow, c.ratioHigh, fmtRatio)}`,
      c.conclusion,
      c.method,
    ]),
  };
}

export function failureTable(rows: readonly FailureRow[]): Table {
  return {
    caption: 'Trials by arm (formal trials; warmups excluded)',
    header: ['arm', 'planned', 'ok', 'failed/invalid', 'infrastructure', 'task', 'by category'],
    rows: rows.map((r) => [
      r.arm,
      String(r.planned),
      String(r.ok),
      String(r.failed),
      String(r.infrastructure),
      String(r.task),
      Object.entries(r.byCategory)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ') || '—',
    ]),
  };
}

export function keyValueTable(caption: string, rows: readonly [string, string][], keyTitle = 'key'): Table {
  return { caption, header: [keyTitle, 'value'], rows: rows.map(([k, v]) => [k, v]) };
}

/** Integers and text verbatim; long decimals rounded for reading (the CSV keeps full precision). */
function displayCell(text: string): string {
  if (!/^-?\d+\.\d{5,}$/.test(text)) return text;
  const value = Number(text);
  return Math.abs(value) < 0.01 ? value.toPrecision(3) : fmt(value);
}

/** A bundle CSV shown as is (diagnostics, density summary): every column, cells verbatim. */
export function csvTable(caption: string, table: CsvTable, columns?: readonly string[]): Table {
  const header = columns ? columns.filter((c) => table.header.includes(c)) : table.header;
  return { caption, header, rows: table.rows.map((r) => header.map((h) => displayCell(r[h] ?? ''))) };
}

export const DENSITY_COLUMNS = [
  'backend',
  'workload',
  'concurrency',
  'planned_batches',
  'full_valid_no_oom_batches',
  'failed_or_unknown_or_oom_batches',
  'oom_batches',
  'attempted_tasks',
  'validated_completed_tasks',
  'known_failed_tasks',
  'unknown_tasks',
  'failure_reasons',
] as const;

/** The diagnostics columns a reader needs; the full table stays in diagnostics.csv. */
export const DIAGNOSTIC_COLUMNS = ['backend', 'metric', 'planned', 'failed', 'n', 'outliers_mad_z', 'drift_rho', 'drift_p', 'drift_warning', 'cv', 'cv_warning', 'cluster_note', 'limitations'] as const;

export function reportTables(model: ReportModel): { headline: Table; comparisons: Table | null; failures: Table; density: Table | null; diagnostics: Table | null; controls: Table; environment: Table } {
  return {
    headline: headlineTable(model.headline),
    comparisons: model.comparisons.length > 0 ? comparisonTable(model.comparisons) : null,
    failures: failureTable(model.failures),
    density: model.densitySummary ? csvTable('Density capacity (density-summary.csv)', model.densitySummary, DENSITY_COLUMNS) : null,
    diagnostics: model.diagnostics && model.diagnostics.rows.length > 0 ? csvTable('Diagnostics (from diagnostics.csv: outliers flagged never removed, drift, variability)', model.diagnostics, model.diagnostics.header.includes('drift_rho') ? DIAGNOSTIC_COLUMNS : undefined) : null,
    controls: keyValueTable('Controls and design', model.controls, 'control'),
    environment: keyValueTable('Environment (environment.json)', model.environment, 'fact'),
  };
}
