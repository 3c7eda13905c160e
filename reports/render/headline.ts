/**
 * The headline every rendering leads with (hyperfine's one block per command, benchstat's one
 * table, Criterion's headline plot): per primary metric a compact table — arm | ok/planned | P50
 * [95% CI] | P95 | ratio vs control [95% CI] | verdict — and a dot-and-interval chart, then one
 * sentence per comparison saying whether its verdict survives the run's Holm family. Everything is
 * read from the ReportModel (cells of summary.csv / comparisons(-detail).csv); nothing is computed.
 */
import type { Table } from '../../harness/analyze/index.ts';
import type { HeadlinePoint } from '../plots/plot-specs.ts';
import { fmt, fmtInterval, fmtRatio } from './format.ts';
import type { ComparisonRow, FamilySummary, HeadlineRow, ReportModel } from './report-model.ts';
import { p50Cell } from './tables.ts';
import { conclusionWords, ratioWords } from './verdict-words.ts';

/** The metrics the headline shows: the kind's primary metrics, else the first metric. */
export function leadMetrics(model: ReportModel): string[] {
  return model.primaryMetrics.length > 0 ? model.primaryMetrics : model.metrics.slice(0, 1);
}

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
          c ? conclusionWords(c.conclusion, c.metric, c.unit) : '',
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

/** "staged ready_ms is 2.750× [2.640, 3.030] slower than host; n = 10" ("larger"/"smaller" on a metric that is not a time). */
export function verdictSentence(c: ComparisonRow): string {
  const words = ratioWords(c.conclusion, c.metric, c.unit);
  if (!words || c.ratio === null) return `${c.candidate} vs ${c.control} on ${c.metric}: ${conclusionWords(c.conclusion, c.metric, c.unit)}; n = ${c.n}`;
  const ratio = c.conclusion === 'candidate faster' && c.ratio > 0 ? 1 / c.ratio : c.ratio;
  const [low, high] = c.conclusion === 'candidate faster' && c.ratioLow && c.ratioHigh ? [1 / c.ratioHigh, 1 / c.ratioLow] : [c.ratioLow, c.ratioHigh];
  return `${c.candidate} ${c.metric} is ${fmtRatio(ratio)}× ${fmtInterval(low, high, fmtRatio)} ${words} ${c.control}; n = ${c.n}`;
}

const pText = (p: number) => (p < 0.001 ? p.toExponential(1) : p.toPrecision(2));

/** The verdict sentence plus whether the verdict survives the run's Holm family (nothing added when there is no verdict). */
export function familyVerdictSentence(c: ComparisonRow, family: FamilySummary): string {
  const sentence = verdictSentence(c);
  if (c.survivesHolm === null || c.holmP === null) return sentence;
  return `${sentence}; ${c.survivesHolm ? 'survives' : 'does NOT survive'} Holm (adjusted p ${pText(c.holmP)}, family of ${family.size})`;
}

/** One sentence on the family: its size and how many verdicts survive. */
export function familySentence(family: FamilySummary): string | null {
  if (family.size === 0) return null;
  return `Multiplicity: the ${family.size} rank test(s) of this run's comparisons are one family (Holm-adjusted, 5% family-wise); ${family.surviving} of ${family.verdicts} verdict(s) survive.`;
}

/** The comparisons the headline speaks about: those on a lead metric, else all. */
export function headlineComparisons(model: ReportModel): ComparisonRow[] {
  const lead = leadMetrics(model);
  const own = model.comparisons.filter((c) => lead.includes(c.metric));
  return own.length > 0 ? own : model.comparisons;
}

export function verdictSentences(model: ReportModel): string[] {
  return headlineComparisons(model).map((c) => familyVerdictSentence(c, model.family));
}

/** The headline chart's points of one metric: arms with an ok value (arms with none are named in the table). */
export function headlinePoints(model: ReportModel, metric: string): HeadlinePoint[] {
  return model.headline
    .filter((r) => r.metric === metric && r.distribution !== 'no data')
    .map((r) => ({
      arm: r.arm,
      p50: r.clusters ? null : r.p50,
      low: r.clusters ? null : (r.p50Ci?.low ?? null),
      high: r.clusters ? null : (r.p50Ci?.high ?? null),
      clusters: r.clusters ? [r.clusters.lowP50, r.clusters.highP50] : null,
    }));
}
