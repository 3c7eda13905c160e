/**
 * Vega-Lite specs for the report's plots. Pure functions of the data: inline values only (no URLs,
 * so nothing is fetched), fixed sizes and a fixed colour domain (arm order from the spec) so the
 * same bundle always gives the same picture.
 */
import type { TopLevelSpec } from 'vega-lite';
import type { ArmSample as Sample, KindChart } from '../../harness/analyze/index.ts';

const WIDTH = 520;
const HEIGHT = 220;
const SCHEMA = 'https://vega.github.io/schema/vega-lite/v6.json';

function axisTitle(metric: string, unit: string): string {
  return unit ? `${metric} (${unit})` : metric;
}

/** Backends span 3 ms to 3 s: past a 10× range a linear axis is a smear at one edge, so the axis goes logarithmic. */
export const LOG_AXIS_SPAN = 10;

export function isWide(values: readonly number[]): boolean {
  if (values.length === 0) return false;
  const min = Math.min(...values);
  return min > 0 && Math.max(...values) / min > LOG_AXIS_SPAN;
}

function valueScale(values: readonly number[]) {
  return isWide(values) ? { type: 'log' as const } : { zero: false };
}

function armColor(arms: readonly string[]) {
  return { field: 'arm', type: 'nominal' as const, title: 'arm', scale: { domain: [...arms], scheme: 'tableau10' } };
}

/** Empirical CDF per arm: shows the whole distribution (both clusters when bimodal), not only P50. */
export function ecdfSpec(metric: string, unit: string, samples: readonly Sample[], arms: readonly string[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: `ECDF of ${metric} by arm`,
    width: WIDTH,
    height: HEIGHT,
    data: { values: samples.map((s) => ({ arm: s.arm, value: s.value })) },
    transform: [
      { sort: [{ field: 'value' }], window: [{ op: 'cume_dist', as: 'ecdf' }], groupby: ['arm'], frame: [null, 0] },
    ],
    mark: { type: 'line', interpolate: 'step-after', point: { size: 14 } },
    encoding: {
      x: { field: 'value', type: 'quantitative', title: axisTitle(metric, unit), scale: valueScale(samples.map((s) => s.value)) },
      y: { field: 'ecdf', type: 'quantitative', title: 'fraction of ok trials ≤ x', scale: { domain: [0, 1] } },
      color: armColor(arms),
    },
  };
}

/** Values in schedule order coloured by arm: slow drift or a warm-up tail shows as a trend. */
export function driftSpec(metric: string, unit: string, samples: readonly Sample[], arms: readonly string[]): TopLevelSpec {
  return {
    $schema: SCHEMA,
    title: `${metric} in schedule order (drift)`,
    width: WIDTH,
    height: HEIGHT,
    data: { values: samples.map((s) => ({ arm: s.arm, position: s.position, block: s.block, value: s.value })) },
    mark: { type: 'point', filled: true, size: 22, opacity: 0.8 },
    encoding: {
      x: { field: 'position', type: 'quantitative', title: 'schedule position', scale: { zero: false } },
      y: { field: 'value', type: 'quantitative', title: axisTitle(metric, unit), scale: valueScale(samples.map((s) => s.value)) },
      color: armColor(arms),
    },
  };
}

/** One arm of a headline chart: its P50 with the order-statistic CI, or its two cluster medians. */
export interface HeadlinePoint {
  arm: string;
  p50: number | null;
  low: number | null;
  high: number | null;
  /** Separated clusters: no single P50, both cluster medians are drawn (hollow). */
  clusters: [number, number] | null;
}

/** The title every headline chart carries (the browser test finds the chart by it). */
export function headlineTitle(metric: string): string {
  return `${metric}: P50 with 95% CI by arm`;
}

/**
 * The headline dot-and-interval chart of one primary metric: P50 and its 95% CI per arm, sorted
 * fastest first, on a log axis past a 10× span (backends span 1 ms to 3 s).
 */
export function headlineSpec(metric: string, unit: string, points: readonly HeadlinePoint[], arms: readonly string[]): TopLevelSpec {
  const sorted = [...points].sort((a, b) => (a.p50 ?? a.clusters?.[0] ?? Infinity) - (b.p50 ?? b.clusters?.[0] ?? Infinity) || (a.arm < b.arm ? -1 : 1));
  const all = sorted.flatMap((p) => [p.p50, p.low, p.high, ...(p.clusters ?? [])]).filter((v): v is number => v !== null && Number.isFinite(v));
  const log = isWide(all);
  const scale = log ? { type: 'log' as const } : { zero: false };
  const x = { field: 'p50', type: 'quantitative' as const, title: `${axisTitle(metric, unit)}, P50 and 95% CI${log ? ', log scale' : ''}`, scale };
  const y = { field: 'arm', type: 'nominal' as const, title: null, sort: sorted.map((p) => p.arm), axis: { labelLimit: 240 } };
  // The arm names are the y labels already: colour keeps the arms consistent with the other plots, no legend needed.
  const color = { ...armColor(arms), legend: null };
  const intervals = sorted.filter((p) => p.low !== null && p.high !== null).map((p) => ({ arm: p.arm, low: p.low, high: p.high }));
  const medians = sorted.filter((p) => p.p50 !== null).map((p) => ({ arm: p.arm, p50: p.p50 }));
  const clusters = sorted.flatMap((p) => (p.clusters ?? []).map((v) => ({ arm: p.arm, p50: v })));
  const layers: NonNullable<Extract<TopLevelSpec, { layer: unknown }>['layer']> = [
    { data: { values: intervals }, mark: { type: 'rule', strokeWidth: 3 }, encoding: { y, x: { ...x, field: 'low' }, x2: { field: 'high' }, color } },
    { data: { values: medians }, mark: { type: 'point', filled: true, size: 90 }, encoding: { y, x, color } },
  ];
  if (clusters.length > 0) layers.push({ data: { values: clusters }, mark: { type: 'point', shape: 'diamond', filled: false, size: 90, strokeWidth: 2 }, encoding: { y, x, color } });
  return { $schema: SCHEMA, title: headlineTitle(metric), width: WIDTH, height: Math.max(60, sorted.length * 30), layer: layers } as TopLevelSpec;
}

export interface ForestRow {
  label: string;
  ratio: number;
  low: number;
  high: number;
}

/** Ratio of medians with its CI per comparison; a rule at 1 (no change) and, when gating, the non-inferiority band up to 1 + threshold. */
export function forestSpec(title: string, rows: readonly ForestRow[], threshold?: number): TopLevelSpec {
  const values = rows.map((r) => ({ ...r }));
  const allX = rows.flatMap((r) => [r.low, r.high, r.ratio]).concat([1], threshold !== undefined ? [1 + threshold] : []);
  // Ratios from 1× to 1000×: on a log axis every row stays readable and 1× sits where it should.
  const log = isWide(allX);
  const span = Math.max(...allX) - Math.min(...allX) || 0.1;
  const domain = log ? [Math.min(...allX) / 1.25, Math.max(...allX) * 1.25] : [Math.min(...allX) - span * 0.08, Math.max(...allX) + span * 0.08];
  const scale = log ? { domain, type: 'log' as const } : { domain, zero: false };
  const x = { field: 'ratio', type: 'quantitative' as const, title: `ratio of medians (candidate / control), 95% CI${log ? ', log scale' : ''}`, scale };
  const y = { field: 'label', type: 'nominal' as const, title: null, sort: rows.map((r) => r.label), axis: { labelLimit: 360 } };
  const layers: NonNullable<Extract<TopLevelSpec, { layer: unknown }>['layer']> = [];
  if (threshold !== undefined) {
    layers.push({
      data: { values: [{ from: domain[0], to: 1 + threshold }] },
      mark: { type: 'rect', color: '#2ca02c', opacity: 0.12 },
      encoding: { x: { field: 'from', type: 'quantitative', scale }, x2: { field: 'to' } },
    });
    layers.push({
      data: { values: [{ limit: 1 + threshold }] },
      mark: { type: 'rule', color: '#d62728', strokeDash: [6, 3] },
      encoding: { x: { field: 'limit', type: 'quantitative', scale } },
    });
  }
  layers.push(
    { data: { values: [{ one: 1 }] }, mark: { type: 'rule', color: '#888' }, encoding: { x: { field: 'one', type: 'quantitative', scale } } },
    { data: { values }, mark: { type: 'rule', strokeWidth: 2 }, encoding: { y, x: { ...x, field: 'low' }, x2: { field: 'high' } } },
    { data: { values }, mark: { type: 'point', filled: true, size: 60, color: '#1f77b4' }, encoding: { y, x } },
  );
  return { $schema: SCHEMA, title, width: WIDTH, height: Math.max(40, rows.length * 28), layer: layers } as TopLevelSpec;
}

/** A kind's line chart (density capacity by N): one line per series, a log-2 x axis when the kind asks (N doubles). */
export function kindChartSpec(chart: KindChart): TopLevelSpec {
  const frame = { $schema: SCHEMA, title: chart.title, width: WIDTH, height: HEIGHT, data: { values: chart.points.map((p) => ({ series: p.series, x: p.x, y: p.y })) } };
  if (chart.mark === 'stacked-bar') {
    return {
      ...frame,
      mark: { type: 'bar' },
      encoding: {
        x: { field: 'x', type: 'ordinal', title: chart.x.title },
        y: { field: 'y', type: 'quantitative', title: chart.y.title, stack: 'zero' },
        color: { field: 'series', type: 'nominal', title: 'series', scale: { scheme: 'tableau10' }, sort: null },
      },
    } as TopLevelSpec;
  }
  return {
    ...frame,
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'x', type: 'quantitative', title: chart.x.title, scale: chart.x.log ? { type: 'log', base: 2 } : { zero: false } },
      y: { field: 'y', type: 'quantitative', title: chart.y.title, scale: chart.y.domain ? { domain: chart.y.domain } : { zero: false } },
      color: { field: 'series', type: 'nominal', title: 'series', scale: { scheme: 'tableau10' } },
    },
  };
}
