/**
 * `report.html` and `report.md` of an analysed bundle: renderings of its BundleAnalysis (the same
 * object the CSVs are written from). Deterministic, so writing twice gives identical bytes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../harness/bundle/layout.ts';
import type { AnalyzedBundle } from '../harness/analyze/index.ts';
import { headlinePlotDefinitions, MAX_PLOTTED_METRICS, plottedMetrics, renderPlots, reportPlotDefinitions, type RenderedPlot } from './plots/report-plots.ts';
import { headlineTitle } from './plots/plot-specs.ts';
import { fmt } from './render/format.ts';
import { familySentence, headlinePoints, headlineTables, leadMetrics, verdictSentences } from './render/headline.ts';
import { textIntervalChart, type IntervalRow } from './render/text-chart.ts';
import { htmlDocument, type HtmlBlock } from './render/html.ts';
import { mdDetails, mdTable } from './render/markdown.ts';
import { buildReportModel, type ReportModel } from './render/report-model.ts';
import { reportTables } from './render/tables.ts';

function metaLine(model: ReportModel): string {
  return [
    `run ${model.runId}`,
    `experiment ${model.experiment}`,
    `arms ${model.arms.join(', ')}`,
    `${model.blocks ?? '?'} blocks, ${model.warmups ?? '?'} warmup blocks`,
    model.specSha ? `spec sha256 ${model.specSha}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * The headline's first lines: a pointer to the warnings (listed in full under the chart), the
 * verdicts and the family. The pointer quotes the first warning whole: a cut sentence ("…host (the
 * de…)") tells the reader nothing, and the box wraps.
 */
function headlineText(model: ReportModel): { pointer: string | null; sentences: string[]; family: string | null } {
  const pointer = model.warnings.length > 0 ? `Read the ${model.warnings.length} warning(s) below the chart before these numbers. The first: ${model.warnings[0]!}` : null;
  return { pointer, sentences: verdictSentences(model), family: familySentence(model.family) };
}

export function renderReportHtml(model: ReportModel, plots: readonly RenderedPlot[], plotted: readonly string[], headlinePlots: readonly RenderedPlot[] = []): string {
  const t = reportTables(model);
  const lead = leadMetrics(model);
  const text = headlineText(model);
  const blocks: HtmlBlock[] = [];
  // The answer first, inside the first screen: verdicts, then the headline chart of each lead metric.
  if (text.pointer) blocks.push({ kind: 'paragraph', text: text.pointer, className: 'warn' });
  // A kind whose answer is not a latency (rollout: throughput, reward, memory, bottleneck) leads with its own table and sentences.
  if (model.kindLead) blocks.push({ kind: 'table', table: model.kindLead.table }, { kind: 'list', items: model.kindLead.sentences, className: 'verdicts lead' });
  if (text.sentences.length > 0) blocks.push({ kind: 'list', items: text.sentences, className: 'verdicts' });
  if (text.family) blocks.push({ kind: 'paragraph', text: text.family, className: 'meta' });
  for (const plot of headlinePlots) blocks.push({ kind: 'plot', plot, className: 'headline' });
  for (const table of headlineTables(model.headline, model.comparisons, lead)) blocks.push({ kind: 'table', table });
  if (model.warnings.length > 0) blocks.push({ kind: 'list', items: model.warnings, className: 'warn' });
  if (model.description) blocks.push({ kind: 'paragraph', text: model.description });
  blocks.push({ kind: 'heading', text: 'Results' }, { kind: 'table', table: t.headline });
  if (t.comparisons) blocks.push({ kind: 'table', table: t.comparisons });
  blocks.push({ kind: 'table', table: t.failures });
  for (const table of t.kind) blocks.push({ kind: 'table', table });
  blocks.push({ kind: 'heading', text: 'Plots' });
  for (const plot of plots) blocks.push({ kind: 'plot', plot });
  const notPlotted = model.metrics.filter((m) => !plotted.includes(m));
  if (notPlotted.length > 0) blocks.push({ kind: 'paragraph', text: `Not plotted (constant, no ok samples, or beyond the first ${MAX_PLOTTED_METRICS}): ${notPlotted.join(', ')}` });
  if (t.diagnostics) blocks.push({ kind: 'heading', text: 'Diagnostics' }, { kind: 'table', table: t.diagnostics });
  blocks.push({
    kind: 'details',
    summary: 'Methods, controls and environment',
    blocks: [{ kind: 'list', items: model.methods }, { kind: 'table', table: t.controls }, { kind: 'table', table: t.environment }],
  });
  return htmlDocument(model.title, metaLine(model), blocks);
}

/** The headline chart of a lead metric as text (GitHub markdown cannot show inline SVG): P50 and CI per arm, log scale past 10×. */
export function headlineTextChart(model: ReportModel, metric: string): string[] {
  const unit = model.headline.find((r) => r.metric === metric)?.unit ?? '';
  const points = headlinePoints(model, metric);
  const sorted = [...points].sort((a, b) => (a.p50 ?? a.clusters?.[0] ?? Infinity) - (b.p50 ?? b.clusters?.[0] ?? Infinity));
  const rows: IntervalRow[] = sorted.map((p) =>
    p.clusters
      ? { label: p.arm, value: null, low: p.clusters[0], high: p.clusters[1], note: '(separated clusters: low and high cluster P50)' }
      : { label: p.arm, value: p.p50, low: p.low, high: p.high },
  );
  return textIntervalChart(`${headlineTitle(metric)}${unit ? `, ${unit}` : ''}`, rows, { format: (v) => fmt(v) });
}

export function renderReportMarkdown(model: ReportModel): string {
  const t = reportTables(model);
  const lead = leadMetrics(model);
  const text = headlineText(model);
  const parts = [`## ${model.title}`, ''];
  if (text.pointer) parts.push(`> **${text.pointer}**`, '');
  if (model.kindLead) parts.push(mdTable(model.kindLead.table), '', ...model.kindLead.sentences.map((s) => `- ${s}`), '');
  if (text.sentences.length > 0) parts.push(...text.sentences.map((s) => `- ${s}`), '');
  if (text.family) parts.push(`_${text.family}_`, '');
  for (const metric of lead) {
    if (headlinePoints(model, metric).length > 0) parts.push('```text', ...headlineTextChart(model, metric), '```', '');
  }
  for (const table of headlineTables(model.headline, model.comparisons, lead)) parts.push(mdTable(table), '');
  if (model.warnings.length > 0) parts.push('**Warnings**', '', ...model.warnings.map((w) => `- ${w}`), '');
  parts.push('### Details', '', mdTable(t.headline), '');
  if (t.comparisons) parts.push(mdTable(t.comparisons), '');
  parts.push(mdTable(t.failures), '');
  for (const table of t.kind) parts.push(mdTable(table), '');
  parts.push(`_${metaLine(model)}. Plots (headline, ECDF, drift, comparison forest${model.kindCharts.length > 0 ? `, ${model.kindCharts.join(', ')}` : ''}) are in report.html._`, '');
  const details = [
    ...model.methods.map((m) => `- ${m}`),
    '',
    mdTable(t.controls),
    '',
    mdTable(t.environment),
    ...(t.diagnostics ? ['', mdTable(t.diagnostics)] : []),
  ].join('\n');
  parts.push(mdDetails('Methods, controls and environment', details), '');
  return parts.join('\n');
}

export function renderBundleReport(analyzed: AnalyzedBundle): { html: string; markdown: string } {
  const model = buildReportModel(analyzed);
  const plots = renderPlots(reportPlotDefinitions(analyzed.analysis, model));
  const headline = renderPlots(headlinePlotDefinitions(model));
  return { html: renderReportHtml(model, plots, plottedMetrics(analyzed.analysis, model), headline), markdown: renderReportMarkdown(model) };
}

/** Writes report.html and report.md into the bundle directory (synchronously: `run` hashes the bundle right after). Returns their paths. */
export function writeReport(analyzed: AnalyzedBundle): { html: string; markdown: string } {
  const { html, markdown } = renderBundleReport(analyzed);
  const htmlPath = join(analyzed.dir, BUNDLE_FILES.reportHtml);
  const markdownPath = join(analyzed.dir, BUNDLE_FILES.reportMd);
  writeFileSync(htmlPath, html);
  writeFileSync(markdownPath, markdown);
  return { html: htmlPath, markdown: markdownPath };
}
