/** The report's tables (harness's one Table type), rendered identically to HTML, markdown and text. */
import type { Table } from '../../harness/analyze/table.ts';
import { fmt, fmtInterval, fmtRatio, methodWithoutSeed } from './format.ts';
import type { ComparisonRow, FailureRow, HeadlineRow, ReportModel } from './report-model.ts';
import { conclusionWords } from './verdict-words.ts';

export type { Table } from '../../harness/analyze/table.ts';

export function p50Cell(row: HeadlineRow): string {
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

const holmText = (c: ComparisonRow) => (c.holmP === null ? '—' : c.holmP < 0.001 ? c.holmP.toExponential(1) : c.holmP.toPrecision(2));
const survivesText = (c: ComparisonRow) => (c.survivesHolm === null ? '—' : c.survivesHolm ? 'yes' : 'no');

/** The comparisons with their Holm columns; the method is written once per distinct method as a footnote (m1, m2, …), not per row. */
export function comparisonTable(rows: readonly ComparisonRow[], caption = 'Comparisons (candidate vs control)', familyLabel?: string): Table {
  const methods = [...new Set(rows.map((c) => methodWithoutSeed(c.method)).filter(Boolean))];
  const id = (c: ComparisonRow) => (c.method ? `m${methods.indexOf(methodWithoutSeed(c.method)) + 1}` : '—');
  const notes = methods.map((m, i) => `m${i + 1}: ${m}`);
  if (familyLabel) notes.push(`Holm p: ${familyLabel}; a verdict survives when its Holm-adjusted p < 0.05`);
  return {
    caption,
    header: ['candidate', 'control', 'metric', 'n', 'difference of medians [95% CI]', 'ratio [95% CI]', 'conclusion', 'Holm p', 'survives Holm', 'method'],
    rows: rows.map((c) => [
      c.candidate,
      c.control,
      c.metric,
      c.n,
      `${fmt(c.difference, c.unit)} ${fmtInterval(c.differenceLow, c.differenceHigh)}`,
      `${fmtRatio(c.ratio)} ${fmtInterval(c.ratioLow, c.ratioHigh, fmtRatio)}`,
      conclusionWords(c.conclusion, c.metric, c.unit),
      holmText(c),
      survivesText(c),
      id(c),
    ]),
    footnote: notes.length > 0 ? notes.join(' · ') : undefined,
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

export interface ReportTables {
  headline: Table;
  comparisons: Table | null;
  failures: Table;
  kind: Table[];
  diagnostics: Table | null;
  controls: Table;
  environment: Table;
}

export function reportTables(model: ReportModel): ReportTables {
  return {
    headline: headlineTable(model.headline),
    comparisons: model.comparisons.length > 0 ? comparisonTable(model.comparisons, undefined, model.family.label) : null,
    failures: failureTable(model.failures),
    kind: model.kindTables,
    diagnostics: model.diagnostics,
    controls: keyValueTable('Controls and design', model.controls, 'control'),
    environment: keyValueTable('Environment (environment.json)', model.environment, 'fact'),
  };
}
