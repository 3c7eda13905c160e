/** What the gate prints and (with --out) writes: gate.csv, gate.md and gate.html with the forest plot and the threshold band. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toCsv } from '../../harness/bundle/csv.ts';
import { formatTextTable } from '../compare/compare-output.ts';
import { forestSpec } from '../plots/plot-specs.ts';
import { renderVegaLite } from '../plots/render-svg.ts';
import { fmtInterval, fmtPercent, fmtRatio } from '../render/format.ts';
import { htmlDocument, type HtmlBlock } from '../render/html.ts';
import { mdTable } from '../render/markdown.ts';
import type { Table } from '../render/tables.ts';
import { GATE_ALPHA, type GateCell, type GateResult } from './gate.ts';

function moreBlocksText(cell: GateCell): string {
  if (cell.verdict !== 'inconclusive') return '';
  return cell.moreBlocks === null ? 'estimate sits on the limit; more blocks are unlikely to decide it' : `≈${cell.moreBlocks} more blocks per run would likely decide it`;
}

export function gateTable(result: GateResult): Table {
  return {
    caption: `Gate: ratio of medians candidate / baseline, non-inferiority limit 1 + threshold; regression claims BH-adjusted at q = ${GATE_ALPHA}`,
    header: ['arm', 'metric', 'n baseline / candidate', 'failed baseline / candidate', 'ratio [95% CI]', 'limit', 'BH q', 'verdict', 'why'],
    rows: result.cells.map((c) => [
      c.arm,
      c.metric,
      `${c.comparison.baseline.values.length} / ${c.comparison.candidate.values.length}`,
      `${c.comparison.baseline.failed} / ${c.comparison.candidate.failed}`,
      c.comparison.result?.ratio_ci ? `${fmtRatio(c.comparison.result.ratio)} ${fmtInterval(c.comparison.result.ratio_ci.percentile.low, c.comparison.result.ratio_ci.percentile.high, fmtRatio)}` : '—',
      `≤ ${fmtRatio(1 + c.threshold)} (+${fmtPercent(c.threshold)})`,
      c.qRegression === null ? '—' : c.qRegression.toPrecision(3),
      c.verdict,
      [c.reason, moreBlocksText(c)].filter(Boolean).join('; '),
    ]),
  };
}

export function gateSummaryText(result: GateResult): string {
  const lines = [`gate: ${result.verdict.toUpperCase()} (exit ${result.exitCode})`];
  for (const reason of result.invalidReasons) lines.push(`  invalid: ${reason}`);
  for (const warning of result.warnings) lines.push(`  warning: ${warning}`);
  const inconclusive = result.cells.filter((c) => c.verdict === 'inconclusive');
  for (const cell of inconclusive) lines.push(`  inconclusive: ${cell.arm} ${cell.metric}: ${moreBlocksText(cell)}`);
  return lines.join('\n');
}

export function gateCsv(result: GateResult): string {
  return toCsv(
    ['arm', 'metric', 'threshold', 'baseline_n', 'baseline_failed', 'baseline_planned', 'candidate_n', 'candidate_failed', 'candidate_planned', 'ratio', 'ratio_ci95_low', 'ratio_ci95_high', 'p_regression', 'bh_q', 'verdict', 'reason', 'more_blocks', 'confidence_method'],
    result.cells.map((c) => [
      c.arm,
      c.metric,
      c.threshold,
      c.comparison.baseline.values.length,
      c.comparison.baseline.failed,
      c.comparison.baseline.planned,
      c.comparison.candidate.values.length,
      c.comparison.candidate.failed,
      c.comparison.candidate.planned,
      c.comparison.result?.ratio,
      c.comparison.result?.ratio_ci?.percentile.low,
      c.comparison.result?.ratio_ci?.percentile.high,
      c.pRegression,
      c.qRegression,
      c.verdict,
      c.reason,
      c.moreBlocks,
      c.comparison.result?.method ?? '',
    ]),
  );
}

export function gateText(result: GateResult): string {
  return `${formatTextTable(gateTable(result))}\n\n${gateSummaryText(result)}\n`;
}

export function writeGateReport(result: GateResult, outDir: string): string[] {
  mkdirSync(outDir, { recursive: true });
  const table = gateTable(result);
  const thresholds = [...new Set(result.cells.map((c) => c.threshold))];
  const forest = result.cells
    .filter((c) => c.comparison.result?.ratio_ci)
    .map((c) => ({ label: `${c.arm} · ${c.metric}`, ratio: c.comparison.result!.ratio!, low: c.comparison.result!.ratio_ci!.percentile.low, high: c.comparison.result!.ratio_ci!.percentile.high }));
  const blocks: HtmlBlock[] = [{ kind: 'paragraph', text: `Verdict: ${result.verdict} (exit ${result.exitCode})`, className: result.verdict === 'pass' ? undefined : 'refuse' }];
  const notes = [...result.invalidReasons.map((r) => `invalid: ${r}`), ...result.warnings.map((w) => `warning: ${w}`)];
  if (notes.length > 0) blocks.push({ kind: 'list', items: notes, className: 'warn' });
  blocks.push({ kind: 'table', table });
  if (forest.length > 0) {
    const spec = forestSpec('Gate: candidate / baseline ratios with 95% CI and the pass band', forest, thresholds.length === 1 ? thresholds[0] : undefined);
    blocks.push({ kind: 'plot', plot: { id: 'gate-forest', title: String(spec.title), svg: renderVegaLite(spec, 'sb-gate-forest') } });
  }
  const html = htmlDocument('sandbench gate', `baseline ${result.comparison.baselineRun} · candidate ${result.comparison.candidateRun}`, blocks);
  const markdown = [`## sandbench gate: ${result.verdict} (exit ${result.exitCode})`, '', mdTable(table), '', ...notes.map((n) => `- ${n}`), ''].join('\n');
  const files = [join(outDir, 'gate.csv'), join(outDir, 'gate.md'), join(outDir, 'gate.html')];
  writeFileSync(files[0]!, gateCsv(result));
  writeFileSync(files[1]!, markdown);
  writeFileSync(files[2]!, html);
  return files;
}
