/**
 * The analysis of `sandbench stats`: any long-format CSV (one row per measurement) → the same
 * summary and comparison tables `analyze` writes. Pure: text in, text out; errors name row and column.
 */
import Papa from 'papaparse';
import type { ArmMetricData, Observation } from './arm-metric.ts';
import { COMPARISONS_DETAIL_HEADER, COMPARISONS_HEADER, comparisonDetailRow, comparisonRow, runComparison, type ComparisonOutcome } from './comparison-table.ts';
import { comparisonFamily, type ComparisonFamily } from './comparison-family.ts';
import { formatCell, toCsv, type Cell } from '../bundle/csv.ts';
import { BundleInputError as AnalysisInputError } from '../bundle/schemas.ts';
import { textTable } from './table.ts';
import { DIAGNOSTICS_HEADER, diagnosticsRow, driftFamily, SUMMARY_HEADER, summarizeArmMetric, summaryRow, type ArmMetricSummary, type TableContext } from './summary-table.ts';
import { unitOf } from './units.ts';
import { DEFAULT_UNDERPOWERED_FRACTION } from '../stats/index.ts';

export interface LongCsvOptions {
  /** File name used in messages and as benchmark_id. */
  source: string;
  value: string;
  arm: string;
  block?: string;
  control?: string;
  /** Keep only rows where column = value (all must hold), e.g. metric=completion_ms, outcome=ok. */
  where?: [string, string][];
  unit?: string;
  resamples: number;
  seedId: string;
  underpoweredFraction?: number;
}

export interface LongCsvResult {
  files: Map<string, string>;
  summaries: ArmMetricSummary[];
  comparisons: ComparisonOutcome[];
  /** The comparisons' Holm family (members index-aligned), the identity columns and the underpowered fraction: what `stats --json` renders. */
  family: ComparisonFamily;
  context: TableContext;
  underpoweredFraction: number;
  control: string;
}

/** Line number of data row i in the file (the header is line 1). */
const lineOf = (index: number) => index + 2;

function requireColumn(fields: readonly string[], column: string, option: string, source: string): void {
  if (!fields.includes(column)) {
    throw new AnalysisInputError(`${source}: row 1 (header): column "${column}" (${option}) not found; columns are: ${fields.join(', ')}`);
  }
}

export function analyzeLongCsv(text: string, options: LongCsvOptions): LongCsvResult {
  const { source } = options;
  // A UTF-8 byte-order mark (spreadsheet exports) would otherwise become part of the first column's name.
  const parsed = Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: 'greedy' });
  const structural = parsed.errors.find((e) => e.type !== 'Delimiter');
  if (structural) throw new AnalysisInputError(`${source}: row ${structural.row === undefined ? '?' : lineOf(structural.row)}: ${structural.message}`);
  const fields = parsed.meta.fields ?? [];
  requireColumn(fields, options.value, '--value', source);
  requireColumn(fields, options.arm, '--arm', source);
  if (options.block) requireColumn(fields, options.block, '--block', source);
  for (const [column] of options.where ?? []) requireColumn(fields, column, '--where', source);

  const arms: string[] = [];
  const byArm = new Map<string, { observations: Observation[]; missing: number; blocks: Map<string, number> }>();
  parsed.data.forEach((row, index) => {
    if ((options.where ?? []).some(([column, wanted]) => (row[column] ?? '') !== wanted)) return;
    const arm = (row[options.arm] ?? '').trim();
    if (arm === '') throw new AnalysisInputError(`${source}: row ${lineOf(index)}, column "${options.arm}": empty arm label`);
    if (!byArm.has(arm)) {
      arms.push(arm);
      byArm.set(arm, { observations: [], missing: 0, blocks: new Map() });
    }
    const entry = byArm.get(arm)!;
    const raw = (row[options.value] ?? '').trim();
    // An empty cell is a missing measurement (a failed trial): counted, never a zero.
    if (raw === '') {
      entry.missing++;
      return;
    }
    const value = Number(raw);
    if (!Number.isFinite(value)) throw new AnalysisInputError(`${source}: row ${lineOf(index)}, column "${options.value}": "${raw}" is not a number`);
    let block: string | null = null;
    if (options.block) {
      block = (row[options.block] ?? '').trim();
      if (block === '') throw new AnalysisInputError(`${source}: row ${lineOf(index)}, column "${options.block}": empty block`);
      const previous = entry.blocks.get(block);
      if (previous !== undefined) {
        throw new AnalysisInputError(`${source}: row ${lineOf(index)}, column "${options.block}": block "${block}" already used by arm "${arm}" on row ${lineOf(previous)}; pairing needs one value per arm and block`);
      }
      entry.blocks.set(block, index);
    }
    entry.observations.push({ value, block, position: index });
  });
  if (arms.length === 0) throw new AnalysisInputError(`${source}: no data rows${options.where?.length ? ' match the --where filters' : ''}`);
  const control = options.control ?? arms[0]!;
  if (!byArm.has(control)) throw new AnalysisInputError(`${source}: --control "${control}" is not a value of column "${options.arm}" (arms: ${arms.join(', ')})`);

  const unit = options.unit ?? unitOf(options.value);
  const data: ArmMetricData[] = arms.map((arm) => {
    const entry = byArm.get(arm)!;
    return {
      arm,
      metric: options.value,
      unit,
      planned: entry.observations.length + entry.missing,
      failed: entry.missing,
      failureCategories: (entry.missing > 0 ? { missing_value: entry.missing } : {}) as Record<string, number>,
      observations: entry.observations,
      okWithoutMetric: 0,
      limitations: [],
    };
  });
  const ctx: TableContext = { benchmark_id: source, batch: options.seedId, mode: 'stats' };
  const summaries = data.map(summarizeArmMetric);
  const controlData = data.find((d) => d.arm === control)!;
  const fraction = options.underpoweredFraction ?? DEFAULT_UNDERPOWERED_FRACTION;
  const comparisons = data
    .filter((d) => d.arm !== control)
    .map((candidate) =>
      runComparison(candidate, controlData, { resamples: options.resamples, seedId: `${options.seedId}:${options.value}:${candidate.arm}`, underpoweredFraction: fraction }),
    );
  const drifts = driftFamily(summaries);
  const family = comparisonFamily(comparisons, `comparisons of ${source}`);
  const files = new Map<string, string>([
    ['summary.csv', toCsv(SUMMARY_HEADER, summaries.map((s) => summaryRow(ctx, s)))],
    ['comparisons.csv', toCsv(COMPARISONS_HEADER, comparisons.map((o) => comparisonRow(ctx, o)))],
    ['comparisons-detail.csv', toCsv(COMPARISONS_DETAIL_HEADER, comparisons.map((o, i) => comparisonDetailRow(ctx, o, fraction, family.members[i])))],
    ['diagnostics.csv', toCsv(DIAGNOSTICS_HEADER, summaries.map((s) => diagnosticsRow(ctx, s, drifts.get(s))))],
  ]);
  return { files, summaries, comparisons, family, context: ctx, underpoweredFraction: fraction, control };
}

/** Display only (CSV files keep full precision): 6 significant digits keep columns readable. */
function display(cell: Cell): string {
  if (typeof cell === 'number') return Number.isInteger(cell) ? String(cell) : String(Number(cell.toPrecision(6)));
  return formatCell(cell) || '—';
}

/** The display table of a long-CSV result (cells rounded for reading; the CSVs hold full precision). */
function displayTable(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return textTable({ caption: '', header: [...header], rows: rows.map((row) => row.map(display)) });
}

export function formatLongCsvResult(result: LongCsvResult): string {
  const summary = displayTable(
    ['arm', 'n', 'failed', 'p50', 'p95_ref', 'min', 'max', 'distribution', 'low_n', 'low_p50', 'high_n', 'high_p50'],
    result.summaries.map(({ data, summary: s }) => {
      const split = s.clusters?.distribution === 'separated-clusters' ? s.clusters : null;
      return [data.arm, s.n, s.failed, s.p50, s.p95, s.min, s.max, s.clusters?.distribution ?? null, split?.low.n ?? null, split?.low.p50 ?? null, split?.high.n ?? null, split?.high.p50 ?? null];
    }),
  );
  const comparisons = displayTable(
    ['candidate', 'control', 'design', 'n', 'difference', 'ci95_low', 'ci95_high', 'ratio', 'conclusion'],
    result.comparisons.map((o) => [o.candidate.arm, o.control.arm, o.design, o.n, o.result?.difference ?? null, o.result?.difference_ci.percentile.low ?? null, o.result?.difference_ci.percentile.high ?? null, o.result?.ratio ?? null, o.result?.conclusion ?? 'insufficient data']),
  );
  const method = result.comparisons.find((o) => o.result)?.result?.method;
  return [summary, '', comparisons, ...(method ? ['', `method: ${method.replace(/; seed \d+ \([^)]*\)$/, '; seeds per comparison in comparisons.csv')}`] : []), '(display rounded to 6 significant digits; the CSVs hold full precision)'].join('\n');
}
