/**
 * The gate in the formats CI systems ingest: JUnit XML (`gate --junit FILE`: one testcase per gated
 * arm × metric; a regression or an inconclusive cell is a <failure>, an invalid one an <error>,
 * each with the verdict, the ratio and its CI as text; gate-level problems no cell owns are one
 * more errored testcase) and GitHub-flavoured markdown for a job summary (`gate --summary-md
 * FILE`, default $GITHUB_STEP_SUMMARY): the verdicts table and the ratios as a text chart (GitHub
 * strips inline SVG from markdown). Deterministic: no timestamps, no durations that were not measured.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fmtInterval, fmtLimit, fmtPercent, fmtRatio } from '../render/format.ts';
import { mdTable } from '../render/markdown.ts';
import { textIntervalChart } from '../render/text-chart.ts';
import type { Table } from '../render/tables.ts';
import type { GateCell, GateResult } from './gate.ts';

const DESIGN_TEXT: Record<GateResult['design'], string> = {
  paired: 'interleaved A/B (paired blocks of one run)',
  independent: 'one run per side',
  hierarchical: 'several runs per side (hierarchical bootstrap)',
};

/** XML 1.0 text: the five entities escaped, characters XML cannot carry dropped. */
export function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function ratioText(cell: GateCell): string {
  const e = cell.estimate;
  if (e.ratio !== null && e.interval) return `ratio ${fmtRatio(e.ratio)} ${fmtInterval(e.interval.low, e.interval.high, fmtRatio)}`;
  if (e.differenceInterval) return `ratio undefined; difference ${e.difference} [${e.differenceInterval.low}, ${e.differenceInterval.high}]`;
  return 'no ratio';
}

const limitText = (cell: GateCell) => `limit ≤ ${fmtLimit(1 + cell.threshold)} (+${fmtPercent(cell.threshold)})`;

/** "regression: staged completion_ms P50 ratio 1.210 [1.150, 1.270], limit ≤ 1.050 (+5.0%); <reason>". */
export function cellVerdictText(cell: GateCell): string {
  const more = cell.verdict === 'inconclusive' && cell.moreBlocks !== null ? `; ≈${cell.moreBlocks} more blocks per run for 80% power` : '';
  return `${cell.verdict}: ${cell.arm} ${cell.metric} ${cell.statistic.toUpperCase()} ${ratioText(cell)}, ${limitText(cell)}${cell.reason ? `; ${cell.reason}` : ''}${more}`;
}

/** Gate-level reasons (environment, integrity, unmatched arms…) that no judged cell already states. */
function gateLevelProblems(result: GateResult): string[] {
  const owned = new Set(result.cells.filter((c) => c.verdict === 'invalid').map((c) => `${c.arm} ${c.metric}: ${c.reason}`));
  return result.invalidReasons.filter((r) => !owned.has(r));
}

/**
 * How an inconclusive cell appears in JUnit: a `failure` (default: the gate could not show the
 * release is not slower) or `skipped` (for CI that treats "needs more blocks" as not-a-failure;
 * the exit code stays 2 either way, so nothing is hidden from the job's status).
 */
export type JunitInconclusive = 'failure' | 'skipped';

export function gateJunit(result: GateResult, options: { inconclusive?: JunitInconclusive } = {}): string {
  const inconclusiveTag = options.inconclusive ?? 'failure';
  const problems = gateLevelProblems(result);
  const skipped = inconclusiveTag === 'skipped' ? result.cells.filter((c) => c.verdict === 'inconclusive').length : 0;
  const failures = result.cells.filter((c) => c.verdict === 'regression' || c.verdict === 'inconclusive').length - skipped;
  const errors = result.cells.filter((c) => c.verdict === 'invalid').length + (problems.length > 0 ? 1 : 0);
  const tests = result.cells.length + (problems.length > 0 ? 1 : 0);
  const counts = `tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}"`;
  const cases = result.cells.map((cell) => {
    const open = `    <testcase classname="sandbench.gate.${xmlText(cell.arm)}" name="${xmlText(`${cell.metric} ${cell.statistic.toUpperCase()}`)}" time="0"`;
    const text = cellVerdictText(cell);
    if (cell.verdict === 'pass') return `${open}>\n      <system-out>${xmlText(text)}</system-out>\n    </testcase>`;
    if (cell.verdict === 'inconclusive' && inconclusiveTag === 'skipped') return `${open}>\n      <skipped message="${xmlText(text)}"/>\n      <system-out>${xmlText(`${text}\nmethod: ${cell.estimate.method}`)}</system-out>\n    </testcase>`;
    const tag = cell.verdict === 'invalid' ? 'error' : 'failure';
    return `${open}>\n      <${tag} type="${cell.verdict}" message="${xmlText(text)}">${xmlText(`${text}\nmethod: ${cell.estimate.method}`)}</${tag}>\n    </testcase>`;
  });
  if (problems.length > 0) {
    cases.push(
      `    <testcase classname="sandbench.gate" name="gate validity" time="0">\n      <error type="invalid" message="${xmlText(problems[0]!)}">${xmlText(problems.join('\n'))}</error>\n    </testcase>`,
    );
  }
  const properties = [
    ['verdict', result.verdict],
    ['exit_code', String(result.exitCode)],
    ['design', DESIGN_TEXT[result.design]],
    ['baseline', result.baselineRuns.join(' ')],
    ['candidate', result.candidateRuns.join(' ')],
    ['family', result.family],
    ...result.warnings.map((w, i) => [`warning_${i + 1}`, w]),
  ].map(([name, value]) => `      <property name="${xmlText(name!)}" value="${xmlText(value!)}"/>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="sandbench gate" ${counts} time="0">`,
    `  <testsuite name="${xmlText(`sandbench gate: ${result.verdict} (exit ${result.exitCode})`)}" ${counts} time="0">`,
    '    <properties>',
    ...properties.map((p) => `  ${p}`),
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

export function verdictsTable(result: GateResult): Table {
  return {
    caption: '',
    header: ['arm', 'metric', 'statistic', 'ratio [95% CI]', 'limit', 'verdict', 'why'],
    rows: result.cells.map((c) => [
      c.arm,
      c.metric,
      c.statistic.toUpperCase(),
      c.estimate.ratio !== null && c.estimate.interval ? `${fmtRatio(c.estimate.ratio)} ${fmtInterval(c.estimate.interval.low, c.estimate.interval.high, fmtRatio)}` : '—',
      `≤ ${fmtLimit(1 + c.threshold)}`,
      `${c.verdict === 'pass' ? '✅' : c.verdict === 'regression' ? '❌' : '⚠️'} ${c.verdict}`,
      [c.reason, c.verdict === 'inconclusive' && c.moreBlocks !== null ? `≈${c.moreBlocks} more blocks per run` : ''].filter(Boolean).join('; '),
    ]),
  };
}

export function gateSummaryMarkdown(result: GateResult): string {
  const parts = [`### sandbench gate: ${result.verdict.toUpperCase()} (exit ${result.exitCode})`, '', `${DESIGN_TEXT[result.design]} · baseline ${result.baselineRuns.join(' ')} · candidate ${result.candidateRuns.join(' ')}`, ''];
  if (result.cells.length > 0) parts.push(mdTable(verdictsTable(result)), '');
  const plotted = result.cells.filter((c) => c.estimate.ratio !== null && c.estimate.interval);
  if (plotted.length > 0) {
    const thresholds = [...new Set(plotted.map((c) => c.threshold))];
    const marks = [{ at: 1, label: 'no change (1×)' }, ...(thresholds.length === 1 ? [{ at: 1 + thresholds[0]!, label: `limit (+${fmtPercent(thresholds[0]!)})` }] : [])];
    const rows = plotted.map((c) => ({ label: `${c.arm} · ${c.metric} ${c.statistic.toUpperCase()}`, value: c.estimate.ratio, low: c.estimate.interval!.low, high: c.estimate.interval!.high }));
    parts.push('```text', ...textIntervalChart('ratio candidate / baseline with 95% CI', rows, { format: fmtRatio, marks }), '```', '');
  }
  const notes = [...result.invalidReasons.map((r) => `- invalid: ${r}`), ...result.warnings.map((w) => `- warning: ${w}`)];
  if (notes.length > 0) parts.push(...notes, '');
  parts.push(`_Family: ${result.family}. Exit codes: 0 pass, 1 regression, 2 inconclusive, 3 invalid._`, '');
  return parts.join('\n');
}

/** Writes the JUnit file (replacing it). */
export function writeGateJunit(result: GateResult, file: string, options: { inconclusive?: JunitInconclusive } = {}): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, gateJunit(result, options));
  return file;
}

/** Writes the job summary: replaces a file named on the command line, appends to $GITHUB_STEP_SUMMARY (other steps write there too). */
export function writeGateSummary(result: GateResult, file: string, mode: 'write' | 'append'): string {
  mkdirSync(dirname(file), { recursive: true });
  (mode === 'append' ? appendFileSync : writeFileSync)(file, gateSummaryMarkdown(result));
  return file;
}
