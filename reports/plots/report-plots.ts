/** The plots of a bundle report: per metric an ECDF and a drift plot, the comparison forest, and density capacity when present. */
import type { TopLevelSpec } from 'vega-lite';
import { num } from '../bundle/csv.ts';
import type { Bundle } from '../bundle/read-bundle.ts';
import { metricUnit, samplesFor } from '../bundle/samples.ts';
import type { ComparisonRow, ReportModel } from '../render/report-model.ts';
import { capacitySpec, driftSpec, ecdfSpec, forestSpec, type CapacityPoint, type ForestRow } from './plot-specs.ts';
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

export function capacityPoints(bundle: Bundle): CapacityPoint[] {
  if (!bundle.densitySummary) return [];
  return bundle.densitySummary.rows
    .map((r) => ({
      backend: r.backend ?? '',
      workload: r.workload ?? '',
      concurrency: num(r.concurrency),
      validated: num(r.validated_completed_tasks),
      attempted: num(r.attempted_tasks),
    }))
    .filter((p): p is CapacityPoint => p.concurrency !== null && p.validated !== null && p.attempted !== null)
    .sort((a, b) => a.backend.localeCompare(b.backend) || a.workload.localeCompare(b.workload) || a.concurrency - b.concurrency);
}

/** Metrics worth a plot: with ok samples and more than one distinct value (a constant has no distribution), at most MAX_PLOTTED_METRICS. */
export function plottedMetrics(bundle: Bundle, model: ReportModel): string[] {
  return model.metrics
    .filter((metric) => new Set(samplesFor(bundle.journal, metric).map((s) => s.value)).size > 1)
    .slice(0, MAX_PLOTTED_METRICS);
}

export function reportPlotDefinitions(bundle: Bundle, model: ReportModel): PlotDefinition[] {
  const plots: PlotDefinition[] = [];
  plottedMetrics(bundle, model).forEach((metric, index) => {
    const samples = samplesFor(bundle.journal, metric);
    const unit = metricUnit(metric);
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
  const capacity = capacityPoints(bundle);
  if (capacity.length > 0) {
    const spec = capacitySpec(capacity);
    plots.push({ id: 'capacity', title: String(spec.title), spec });
  }
  return plots;
}

/** Renders in order, one view at a time (vega views are heavy; the machine is shared). */
export function renderPlots(definitions: readonly PlotDefinition[]): RenderedPlot[] {
  return definitions.map((d) => ({ id: d.id, title: d.title, svg: renderVegaLite(d.spec, `sb-${d.id}`) }));
}
