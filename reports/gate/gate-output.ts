/** What the gate prints and (with --out) writes: gate.csv, gate.md and gate.html with the forest plot and the threshold band. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { formatTextTable } from '../compare/compare-output.ts';
import { forestSpec } from '../plots/plot-specs.ts';
import { renderVegaLite } from '../plots/render-svg.ts';
import { fmtInterval, fmtLimit, fmtPercent, fmtRatio } from '../render/format.ts';
import { htmlDocument, type HtmlBlock } from '../render/html.ts';
import { mdTable } from '../render/markdown.ts';
import type { Table } from '../render/tables.ts';
import type { GateCell, GateResult } from './gate.ts';

function moreBlocksText(cell: GateCell): string {
  if (cell.verdict !== 'inconclusive') return '';
  return cell.moreBlocks === null
    ? 'estimate sits on the limit; more blocks are unlikely to decide it'
    : `≈${cell.moreBlocks} more blocks per run for 80% power to decide it (SE ∝ 1/√n from this run's interval; see sandbench power)`;
}

function nText(side: GateCell['baseline']): string {
  return side.n.length > 1 ? `${side.n.reduce((a, b) => a + b, 0)} (${side.n.length} runs)` : String(side.n[0] ?? 0);
}

function ratioText(cell: GateCell): string {
  const e = cell.estimate;
  if (e.ratio !== null && e.interval) return `${fmtRatio(e.ratio)} ${fmtInterval(e.interval.low, e.interval.high, fmtRatio)}`;
  if (e.differenceInterval) return `undefined; difference ${e.difference} [${e.differenceInterval.low}, ${e.differenceInterval.high}]`;
  return '—';
}

const DESIGN_TEXT: Record<GateResult['design'], string> = {
  paired: 'interleaved A/B (paired blocks of one run)',
  independent: 'one run per side',
  hierarchical: 'several runs per side (hierarchical bootstrap)',
};

export function gateTable(result: GateResult): Table {
  return {
    caption: `Gate (${DESIGN_TEXT[result.design]}): ratio candidate / baseline of the gated statistic, non-inferiority limit 1 + threshold; family: ${result.family}`,
    header: ['arm', 'metric', 'statistic', 'n baseline / candidate', 'failed baseline / candidate', 'ratio [95% CI]', 'limit', 'BH q', 'verdict', 'why'],
    rows: result.cells.map((c) => [
      c.arm,
      c.metric,
      c.statistic.toUpperCase(),
      `${nText(c.baseline)} / ${nText(c.candidate)}`,
      `${c.baseline.failed} / ${c.candidate.failed}`,
      ratioText(c),
      `≤ ${fmtLimit(1 + c.threshold)} (+${fmtPercent(c.threshold)})`,
      c.qRegression === null ? '—' : c.qRegression.toPrecision(3),
      c.verdict,
      [c.reason, moreBlocksText(c)].filter(Boolean).join('; '),
    ]),
  };
}

export function gateSummaryText(result: GateResult): string {
  const lines = [`gate: ${result.verdict.toUpperCase()} (exit ${result.exitCode})`];
  for (const build of result.builds ?? []) lines.push(`  build: ${build}`);
  for (const reason of result.invalidReasons) lines.push(`  invalid: ${reason}`);
  for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  const inconclusive = result.cells.filter((c) => c.verdict === 'inconclusive');
  for (const cell of inconclusive) lines.push(`  inconclusive: ${cell.arm} ${cell.metric}: ${moreBlocksText(cell)}`);
  const methods = [...new Set(result.cells.map((c) => c.estimate.method).filter(Boolean))];
  for (const method of methods) lines.push(`  method: ${method}`);
  return lines.join('\n');
}

export const GATE_CSV_HEADER = ['arm', 'metric', 'statistic', 'design', 'threshold', 'baseline_n', 'baseline_failed', 'baseline_planned', 'baseline_runs', 'candidate_n', 'candidate_failed', 'candidate_planned', 'candidate_runs', 'ratio', 'ratio_ci95_low', 'ratio_ci95_high', 'difference', 'difference_ci95_low', 'difference_ci95_high', 'p_regression', 'bh_q', 'family', 'run_variance_covered', 'verdict', 'reason', 'more_blocks', 'confidence_method'] as const;

/** gate.csv's cells (the `--json` cells are the same by column). */
export function gateRows(result: GateResult): Cell[][] {
  return result.cells.map((c) => [
      c.arm,
      c.metric,
      c.statistic,
      result.design,
      c.threshold,
      c.baseline.n.reduce((a, b) => a + b, 0),
      c.baseline.failed,
      c.baseline.planned,
      c.baseline.n.length,
      c.candidate.n.reduce((a, b) => a + b, 0),
      c.candidate.failed,
      c.candidate.planned,
      c.candidate.n.length,
      c.estimate.ratio,
      c.estimate.interval?.low,
      c.estimate.interval?.high,
      c.estimate.difference,
      c.estimate.differenceInterval?.low,
      c.estimate.differenceInterval?.high,
      c.pRegression,
      c.qRegression,
      result.family,
      c.estimate.runVarianceCovered,
      c.verdict,
      c.reason,
      c.moreBlocks,
      c.estimate.method,
    ]);
}

export function gateCsv(result: GateResult): string {
  return toCsv(GATE_CSV_HEADER, gateRows(result));
}

export function gateText(result: GateResult): string {
  return `${formatTextTable(gateTable(result))}\n\n${gateSummaryText(result)}\n`;
}

export function writeGateReport(result: GateResult, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const table = gateTable(result);
  const thresholds = [...new Set(result.cells.map((c) => c.threshold))];
  const forest = result.cells
    .filter((c) => c.estimate.ratio !== null && c.estimate.interval)
    .map((c) => ({ label: `${c.arm} · ${c.metric} (${c.statistic.toUpperCase()})`, ratio: c.estimate.ratio!, low: c.estimate.interval!.low, high: c.estimate.interval!.high }));
  const blocks: HtmlBlock[] = [{ kind: 'paragraph', text: `Verdict: ${result.verdict} (exit ${result.exitCode})`, className: result.verdict === 'pass' ? undefined : 'refuse' }];
  const notes = [...(result.builds ?? []).map((b) => `build: ${b}`), ...result.invalidReasons.map((r) => `invalid: ${r}`), ...result.warnings.map((w) => `warning: ${w}`)];
  if (notes.length > 0) blocks.push({ kind: 'list', items: notes, className: 'warn' });
  blocks.push({ kind: 'table', table });
  if (forest.length > 0) {
    const spec = forestSpec('Gate: candidate / baseline ratios with 95% CI and the pass band', forest, thresholds.length === 1 ? thresholds[0] : undefined);
    blocks.push({ kind: 'plot', plot: { id: 'gate-forest', title: String(spec.title), svg: renderVegaLite(spec, 'sb-gate-forest') } });
  }
  const html = htmlDocument('sandbench gate', `baseline ${result.baselineRuns.join(' ')} · candidate ${result.candidateRuns.join(' ')}`, blocks);
  const markdown = [`## sandbench gate: ${result.verdict} (exit ${result.exitCode})`, '', mdTable(table), '', ...notes.map((n) => `- ${n}`), ''].join('\n');
  const files = [join(outDir, 'gate.csv'), join(outDir, 'gate.md'), join(outDir, 'gate.html')];
  writeFileSync(files[0]!, gateCsv(result));
  writeFileSync(files[1]!, markdown);
  writeFileSync(files[2]!, html);
  return files;
}
