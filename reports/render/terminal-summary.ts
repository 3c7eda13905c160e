/**
 * The terminal summary after `run` and `analyze`: headline first (hyperfine's one block per
 * command, benchstat's one table). One compact table per primary metric the kind declares —
 * arm | ok/planned | P50 [95% CI] | P95 (n ≥ 30) | ratio vs control [95% CI] | verdict — then one
 * sentence per comparison. Every number is a cell of summary.csv / comparisons.csv (rounded for
 * reading only); the full tables stay in the CSVs and the report.
 */
import { textTable, type AnalyzedBundle, type Table } from '../../harness/analyze/index.ts';
import { buildReportModel, type ComparisonRow, type HeadlineRow } from './report-model.ts';
import { fmt, fmtInterval, fmtRatio } from './format.ts';
import { p50Cell } from './tables.ts';

const RATIO_WORDS: Record<string, string> = {
  'candidate faster': 'faster than',
  'candidate slower': 'slower than',
};

function ratioCell(c: ComparisonRow | undefined): string {
  if (!c) return '';
  return c.ratio === null ? '—' : `${fmtRatio(c.ratio)}× ${fmtInterval(c.ratioLow, c.ratioHigh, fmtRatio)}`;
}

/** The comparisons of a metric whose candidate is `arm` (one per control). */
function comparisonsOf(comparisons: readonly ComparisonRow[], arm: string, metric: string): ComparisonRow[] {
  return comparisons.filter((c) => c.candidate === arm && c.metric === metric);
}

export function headlineTables(rows: readonly HeadlineRow[], comparisons: readonly ComparisonRow[], metrics: readonly string[]): Table[] {
  return metrics.map((metric) => {
    const body = rows
      .filter((r) => r.metric === metric)
      .flatMap((r) => {
        const own = comparisonsOf(comparisons, r.arm, metric);
        const controlOf = comparisons.some((c) => c.control === r.arm && c.metric === metric);
        const lines = own.length > 0 ? own : [undefined];
        return lines.map((c, i) => [
          i === 0 ? r.arm : '',
          i === 0 ? `${r.n}/${r.planned}` : '',
          i === 0 ? p50Cell(r) : '',
          i === 0 ? fmt(r.p95) : '',
          c ? `${ratioCell(c)} vs ${c.control}` : controlOf ? 'control' : '',
          c ? c.conclusion : '',
        ]);
      });
    const unit = rows.find((r) => r.metric === metric)?.unit;
    return {
      caption: `${metric}${unit ? ` (${unit})` : ''}`,
      header: ['arm', 'ok/planned', 'P50 [95% CI]', 'P95 (n ≥ 30)', 'ratio vs control [95% CI]', 'verdict'],
      rows: body,
    };
  });
}

/** "staged reaches ready_ms 2.750× [2.640, 3.030] slower than host; n = 10 pairs (paired blocks)". */
export function verdictSentence(c: ComparisonRow): string {
  const words = RATIO_WORDS[c.conclusion];
  if (!words || c.ratio === null) return `${c.candidate} vs ${c.control} on ${c.metric}: ${c.conclusion}; n = ${c.n}`;
  const ratio = c.conclusion === 'candidate faster' && c.ratio > 0 ? 1 / c.ratio : c.ratio;
  const [low, high] = c.conclusion === 'candidate faster' && c.ratioLow && c.ratioHigh ? [1 / c.ratioHigh, 1 / c.ratioLow] : [c.ratioLow, c.ratioHigh];
  return `${c.candidate} ${c.metric} is ${fmtRatio(ratio)}× ${fmtInterval(low, high, fmtRatio)} ${words} ${c.control}; n = ${c.n}`;
}

export function terminalSummary(analyzed: AnalyzedBundle): string {
  const model = buildReportModel(analyzed);
  const lead = model.primaryMetrics.length > 0 ? model.primaryMetrics : model.metrics.slice(0, 1);
  const out: string[] = [];
  for (const table of headlineTables(model.headline, model.comparisons, lead)) out.push(table.caption, textTable(table), '');
  const sentences = model.comparisons.filter((c) => lead.includes(c.metric)).map(verdictSentence);
  if (sentences.length > 0) out.push(...sentences, '');
  const method = model.comparisons.find((c) => lead.includes(c.metric) && c.method)?.method;
  if (method) out.push(`method: ${method.replace(/; seed \d+ \([^)]*\)$/, '; seeds per comparison in comparisons.csv')}`);
  const others = model.metrics.filter((m) => !lead.includes(m));
  if (others.length > 0) out.push(`other metrics (summary.csv, report.md): ${others.join(', ')}`);
  for (const warning of model.warnings) out.push(`warning: ${warning}`);
  out.push('(rounded for reading; the CSVs hold full precision)');
  return out.join('\n');
}
