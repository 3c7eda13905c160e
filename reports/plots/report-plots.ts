/** The plots of a bundle report, drawn from its analysis: per metric an ECDF and a drift plot, the comparison forest, and each chart the kind adds. */
import type { TopLevelSpec } from 'vega-lite';
import { samplesOf, unitOf, type BundleAnalysis } from '../../harness/analyze/index.ts';
import type { ComparisonRow, ReportModel } from '../render/report-model.ts';
import { driftSpec, ecdfSpec, forestSpec, headlineSpec, kindChartSpec, type ForestRow } from './plot-specs.ts';
import { headlinePoints, leadMetrics } from '../render/headline.ts';
import { renderVegaLite } from './render-svg.ts';

export interface PlotDefinition {
  id: string;
  title: string;
  spec: TopLevelSpec;
}

export interface RenderedPlot {
  id: string;
  title: string;
  svg: string;
}

/** Plots become unreadable past this many metrics; the rest are listed as not plotted. */
export const MAX_PLOTTED_METRICS = 12;

export function forestRows(comparisons: readonly ComparisonRow[]): ForestRow[] {
  return comparisons
    .filter((c) => c.ratio !== null && c.ratioLow !== null && c.ratioHigh !== null)
    .map((c) => ({ label: `${c.candidate} / ${c.control} · ${c.metric}`, ratio: c.ratio!, low: c.ratioLow!, high: c.ratioHigh! }));
}

/** Metrics worth a plot: with valid samples and more than one distinct value (a constant has no distribution), at most MAX_PLOTTED_METRICS. */
export function plottedMetrics(analysis: BundleAnalysis, model: ReportModel): string[] {
  return model.metrics.filter((metric) => new Set(samplesOf(analysis, metric).map((s) => s.value)).size > 1).slice(0, MAX_PLOTTED_METRICS);
}

export function reportPlotDefinitions(analysis: BundleAnalysis, model: ReportModel): PlotDefinition[] {
  const plots: PlotDefinition[] = [];
  plottedMetrics(analysis, model).forEach((metric, index) => {
    const samples = samplesOf(analysis, metric).filter((s) => model.arms.includes(s.arm));
    const unit = unitOf(metric);
    const ecdf = ecdfSpec(metric, unit, samples, model.arms);
    plots.push({ id: `ecdf-${index}`, title: String(ecdf.title), spec: ecdf });
    const drift = driftSpec(metric, unit, samples, model.arms);
    plots.push({ id: `drift-${index}`, title: String(drift.title), spec: drift });
  });
  const forest = forestRows(model.comparisons);
  if (forest.length > 0) {
    const spec = forestSpec('Comparison ratios of medians with 95% CI', forest);
    plots.push({ id: 'forest', title: String(spec.title), spec });
  }
  for (const chart of analysis.extras.charts) {
    const spec = kindChartSpec(chart);
    plots.push({ id: chart.id, title: chart.title, spec });
  }
  return plots;
}

/** The headline chart of each lead metric (P50 and CI per arm), drawn above every table of the report. */
export function headlinePlotDefinitions(model: ReportModel): PlotDefinition[] {
  return leadMetrics(model).flatMap((metric, index) => {
    const points = headlinePoints(model, metric);
    if (points.length === 0) return [];
    const spec = headlineSpec(metric, model.headline.find((r) => r.metric === metric)?.unit ?? unitOf(metric), points, model.arms);
    return [{ id: `headline-${index}`, title: String(spec.title), spec }];
  });
}

/** Renders in order, one view at a time (vega views are heavy; the machine is shared). */
export function renderPlots(definitions: readonly PlotDefinition[]): RenderedPlot[] {
  return definitions.map((d) => ({ id: d.id, title: d.title, svg: renderVegaLite(d.spec, `sb-${d.id}`) }));
}
