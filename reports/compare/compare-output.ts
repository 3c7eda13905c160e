/** Renders a bundle comparison: comparison.csv (full precision), a printed table, and a small HTML/markdown report. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { forestSpec } from '../plots/plot-specs.ts';
import { renderVegaLite } from '../plots/render-svg.ts';
import { fmt, fmtInterval, fmtRatio } from '../render/format.ts';
import { htmlDocument, type HtmlBlock } from '../render/html.ts';
import { mdTable } from '../render/markdown.ts';
import type { Table } from '../render/tables.ts';
import type { BundleComparison } from './bundle-comparison.ts';
import { isReplicated } from '../../harness/analyze/metric-design.ts';

export const COMPARISON_CSV_HEADER = [
  'arm',
  'metric',
  'unit',
  'baseline_run',
  'candidate_run',
  'baseline_planned',
  'baseline_failed',
  'baseline_n',
  'candidate_planned',
  'candidate_failed',
  'candidate_n',
  'baseline_p50',
  'candidate_p50',
  'difference',
  'difference_ci95_low',
  'difference_ci95_high',
  'ratio',
  'ratio_ci95_low',
  'ratio_ci95_high',
  'ratio_bca95_low',
  'ratio_bca95_high',
  'mann_whitney_p',
  'conclusion',
  'confidence_method',
  // What one value stands for (the kind's declaration): trial, attempt, cell or run.
  'unit_of_replication',
  'baseline_units',
  'candidate_units',
  // Set ("n = 1 per run, no interval") for a per-cell or per-run value: no CI, no verdict.
  'no_interval',
  // Scores (rewards): the mean (success rate when 0/1) of each side, the matched pairs, McNemar's exact p.
  'baseline_mean',
  'candidate_mean',
  'pairs',
  'mcnemar_p',
] as const;

/** comparison.csv's cells (the `--json` rows are the same cells by column). */
export function comparisonCsvRows(comparison: BundleComparison): Cell[][] {
  return comparison.rows.map((r) => [
      r.arm,
      r.metric,
      r.unit,
      comparison.baselineRun,
      comparison.candidateRun,
      r.baseline.planned,
      r.baseline.failed,
      r.baseline.values.length,
      r.candidate.planned,
      r.candidate.failed,
      r.candidate.values.length,
      r.baseline.median,
      r.candidate.median,
      r.result?.difference ?? r.score?.difference,
      r.result?.difference_ci.percentile.low ?? r.score?.ci?.low,
      r.result?.difference_ci.percentile.high ?? r.score?.ci?.high,
      r.result?.ratio,
      r.result?.ratio_ci?.percentile.low,
      r.result?.ratio_ci?.percentile.high,
      r.result?.ratio_ci?.bca?.low,
      r.result?.ratio_ci?.bca?.high,
      r.result?.mann_whitney_p,
      conclusionOf(r),
      r.result?.method ?? r.score?.method ?? '',
      r.design.unit,
      r.baseline.values.length,
      r.candidate.values.length,
      r.noInterval,
      r.design.scale === 'score' ? r.baseline.mean : null,
      r.design.scale === 'score' ? r.candidate.mean : null,
      r.score?.pairs,
      r.score?.design === 'paired proportions' ? r.score.p : null,
    ]);
}

/** The verdict of whichever comparison ran, else why none did. */
export function conclusionOf(r: BundleComparison['rows'][number]): string {
  if (r.result) return r.result.conclusion;
  if (r.score) return r.score.conclusion;
  if (r.noInterval) return r.noInterval;
  return `not compared: ${r.missing}`;
}

/** The ratio column of the printed table: the ratio with its CI, a score's paired difference, or why there is no interval. */
function estimateCell(r: BundleComparison['rows'][number]): string {
  if (r.result) return r.result.ratio_ci ? `${fmtRatio(r.result.ratio)} ${fmtInterval(r.result.ratio_ci.percentile.low, r.result.ratio_ci.percentile.high, fmtRatio)}` : `ratio undefined (${r.result.ratio_note})`;
  if (r.score) {
    const what = r.score.design === 'paired proportions' ? 'success rate' : 'mean';
    const p = r.score.p === null ? '' : `, ${r.score.design === 'paired proportions' ? 'McNemar' : 'signed-rank'} p ${r.score.p.toPrecision(3)}`;
    return `Δ ${what} ${fmtRatio(r.score.difference)} ${fmtInterval(r.score.ci?.low, r.score.ci?.high, fmtRatio)} (${r.score.pairs} pairs${p})`;
  }
  return '—';
}

/** n ok/planned (failed); for a per-cell or per-run value, how many such values stand behind it. */
function countCell(r: BundleComparison['rows'][number], side: 'baseline' | 'candidate'): string {
  const s = r[side];
  if (isReplicated(r.design.unit)) return `${s.values.length}/${s.planned} (${s.failed})`;
  return `${s.values.length} per-${r.design.unit} value(s) of ${s.planned} trials (${s.failed})`;
}

/** A side's value: the P50 (or, for a score, the mean / success rate), with the units when one value per run. */
function sideCell(r: BundleComparison['rows'][number], side: 'baseline' | 'candidate'): string {
  const s = r[side];
  if (r.design.scale === 'score') return s.mean === null ? '—' : `${fmtRatio(s.mean)} mean`;
  return fmt(s.median, r.unit);
}

export function comparisonCsv(comparison: BundleComparison): string {
  return toCsv(COMPARISON_CSV_HEADER, comparisonCsvRows(comparison));
}

export function comparisonTableOf(comparison: BundleComparison): Table {
  return {
    caption: `candidate ${comparison.candidateRun} vs baseline ${comparison.baselineRun} (ratio = candidate / baseline median)`,
    header: ['arm', 'metric', 'baseline n ok/planned (failed)', 'candidate n ok/planned (failed)', 'baseline P50', 'candidate P50', 'ratio [95% CI]', 'conclusion'],
    rows: comparison.rows.map((r) => [
      r.arm,
      r.metric,
      countCell(r, 'baseline'),
      countCell(r, 'candidate'),
      sideCell(r, 'baseline'),
      sideCell(r, 'candidate'),
      estimateCell(r),
      conclusionOf(r),
    ]),
    ...(comparison.rows.some((r) => r.noInterval)
      ? { footnote: 'n = 1 per run: a value recorded once per cell run or per run (copied onto every attempt) is shown side by side, with no interval and no verdict' }
      : {}),
  };
}

/** Plain-text aligned table for the terminal: harness's one Table text renderer. */
export { textTable as formatTextTable } from '../../harness/analyze/table.ts';

export function comparabilityLines(comparison: BundleComparison): string[] {
  const lines = comparison.env.differences.map((d) => `environment differs on ${d.key}: baseline ${d.baseline ?? '(not recorded)'} vs candidate ${d.candidate ?? '(not recorded)'}`);
  for (const d of comparison.env.intended ?? []) lines.push(`${d.key} differs as intended (an arm carries a build): baseline ${d.baseline ?? '(not recorded)'} vs candidate ${d.candidate ?? '(not recorded)'}`);
  lines.push(...(comparison.builds ?? []));
  if (comparison.specDifference) lines.push(comparison.specDifference);
  if (comparison.env.unverified.length > 0) lines.push(`not recorded in either bundle, comparability unverified: ${comparison.env.unverified.join(', ')}`);
  for (const a of comparison.armsOnlyInBaseline) lines.push(`arm ${a} is only in the baseline`);
  for (const a of comparison.armsOnlyInCandidate) lines.push(`arm ${a} is only in the candidate`);
  for (const m of comparison.metricsOnlyInBaseline) lines.push(`metric ${m} is only in the baseline`);
  for (const m of comparison.metricsOnlyInCandidate) lines.push(`metric ${m} is only in the candidate`);
  return lines;
}

export interface ComparisonFiles {
  csv: string;
  markdown: string;
  html: string;
}

export function writeComparison(comparison: BundleComparison, outDir: string, mismatchAllowed: boolean): ComparisonFiles {
  mkdirSync(outDir, { recursive: true });
  const table = comparisonTableOf(comparison);
  const notes = comparabilityLines(comparison);
  const warning =
    mismatchAllowed && comparison.env.differences.length > 0
      ? 'COMPARABILITY WARNING: the two bundles were measured in different environments (--allow-env-mismatch); ratios below mix environment and code effects.'
      : null;
  const forest = comparison.rows
    .filter((r) => r.result?.ratio_ci)
    .map((r) => ({ label: `${r.arm} · ${r.metric}`, ratio: r.result!.ratio!, low: r.result!.ratio_ci!.percentile.low, high: r.result!.ratio_ci!.percentile.high }));
  const methods = [...new Set(comparison.rows.map((r) => r.result?.method ?? r.score?.method).filter((m): m is string => Boolean(m)))];
  const blocks: HtmlBlock[] = [];
  if (warning) blocks.push({ kind: 'paragraph', text: warning, className: 'refuse' });
  if (notes.length > 0) blocks.push({ kind: 'list', items: notes, className: 'warn' });
  blocks.push({ kind: 'table', table });
  if (forest.length > 0) {
    const spec = forestSpec('Candidate / baseline ratio of medians with 95% CI', forest);
    blocks.push({ kind: 'plot', plot: { id: 'compare-forest', title: String(spec.title), svg: renderVegaLite(spec, 'sb-compare-forest') } });
  }
  blocks.push({ kind: 'details', summary: 'Methods', blocks: [{ kind: 'list', items: ['Only ok formal trials; warmups excluded; failed trials counted in planned/failed.', ...methods] }] });
  const title = 'sandbench compare';
  const html = htmlDocument(title, `baseline ${comparison.baselineRun} · candidate ${comparison.candidateRun}`, blocks);
  const markdown = [
    `## ${title}: ${comparison.candidateRun} vs ${comparison.baselineRun}`,
    '',
    ...(warning ? [`> **${warning}**`, ''] : []),
    mdTable(table),
    '',
    ...(notes.length > 0 ? [...notes.map((n) => `- ${n}`), ''] : []),
    '<details>\n<summary>Methods</summary>\n',
    ...methods.map((m) => `- ${m}`),
    '\n</details>',
    '',
  ].join('\n');
  const files = { csv: join(outDir, 'comparison.csv'), markdown: join(outDir, 'comparison.md'), html: join(outDir, 'comparison.html') };
  writeFileSync(files.csv, comparisonCsv(comparison));
  writeFileSync(files.markdown, markdown);
  writeFileSync(files.html, html);
  return files;
}
