/**
 * `report.html` and `report.md` of an analysed bundle: renderings of its BundleAnalysis (the same
 * object the CSVs are written from). Deterministic, so writing twice gives identical bytes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../harness/bundle/layout.ts';
import type { AnalyzedBundle } from '../harness/analyze/index.ts';
import { MAX_PLOTTED_METRICS, plottedMetrics, renderPlots, reportPlotDefinitions, type RenderedPlot } from './plots/report-plots.ts';
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

export function renderReportHtml(model: ReportModel, plots: readonly RenderedPlot[], plotted: readonly string[]): string {
  const t = reportTables(model);
  const blocks: HtmlBlock[] = [];
  if (model.description) blocks.push({ kind: 'paragraph', text: model.description });
  if (model.warnings.length > 0) blocks.push({ kind: 'list', items: model.warnings, className: 'warn' });
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

export function renderReportMarkdown(model: ReportModel): string {
  const t = reportTables(model);
  const parts = [`## ${model.title}`, '', mdTable(t.headline), ''];
  if (t.comparisons) parts.push(mdTable(t.comparisons), '');
  parts.push(mdTable(t.failures), '');
  for (const table of t.kind) parts.push(mdTable(table), '');
  parts.push(`_${metaLine(model)}. Plots (ECDF, drift, comparison forest${model.kindCharts.length > 0 ? `, ${model.kindCharts.join(', ')}` : ''}) are in report.html._`, '');
  if (model.warnings.length > 0) parts.push('**Warnings**', '', ...model.warnings.map((w) => `- ${w}`), '');
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
  return { html: renderReportHtml(model, plots, plottedMetrics(analyzed.analysis, model)), markdown: renderReportMarkdown(model) };
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
