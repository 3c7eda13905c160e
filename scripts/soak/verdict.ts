/**
 * Does a series grow without bound? (pure)
 *
 * The test: a resource GROWS when the lower bound of the 95% Sen interval of its Theil–Sen slope
 * (harness/stats/theil-sen.ts) is above zero AND its end level exceeds its start level by more than
 * the resource's tolerance (scripts/soak/resources.ts). Start and end are medians of the first and
 * last sixth of the judged samples (at least 1, at most 5), so one sample that lands while a run
 * holds its containers is not a level.
 *
 * Why both conditions: the slope interval alone assumes independent errors, and a soak's series are
 * serially correlated (a resource rises and falls with each campaign cycle), so over an hour it can
 * exclude zero for a drift of a few files; the floor alone would call one burst growth. A leak is a
 * trend the ranks agree on AND a size that matters. Why Theil–Sen: a median of pairwise slopes
 * ignores the outliers a shared machine produces (another engineer's suite holding 40 containers
 * for a minute), where least squares would follow them. Samples before the first full campaign
 * cycle are not judged: caches filled once (an image loaded into the private dockerd, the rollout
 * task set) are a step, not a trend.
 */
import { theilSen } from '../../harness/stats/theil-sen.ts';
import type { Resource } from './resources.ts';

export interface SeriesPoint {
  /** Minutes since the soak started. */
  minute: number;
  value: number | null;
}

export type Verdict = 'bounded' | 'GROWS' | 'expected growth' | 'context' | 'too few samples' | 'unavailable';

export interface ResourceVerdict {
  resource: Resource;
  n: number;
  start: number;
  end: number;
  /** Slope and its 95% interval, per hour. */
  slopePerHour: number;
  lowerPerHour: number;
  upperPerHour: number;
  verdict: Verdict;
}

/** Fewer judged samples than this and the interval cannot exclude zero for a modest trend. */
export const MIN_SAMPLES = 6;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function levelWindow(n: number): number {
  return Math.min(5, Math.max(1, Math.floor(n / 6)));
}

export function judgeSeries(resource: Resource, series: readonly SeriesPoint[]): ResourceVerdict {
  const points = series.filter((p): p is { minute: number; value: number } => p.value !== null && Number.isFinite(p.value));
  const n = points.length;
  const base = { resource, n, start: NaN, end: NaN, slopePerHour: NaN, lowerPerHour: NaN, upperPerHour: NaN };
  if (n === 0) return { ...base, verdict: 'unavailable' };
  const k = levelWindow(n);
  const start = median(points.slice(0, k).map((p) => p.value));
  const end = median(points.slice(n - k).map((p) => p.value));
  const fit = theilSen(points.map((p) => p.minute), points.map((p) => p.value));
  const judged = { ...base, start, end, slopePerHour: fit.slope * 60, lowerPerHour: fit.lower * 60, upperPerHour: fit.upper * 60 };
  if (resource.role === 'context') return { ...judged, verdict: 'context' };
  if (resource.role === 'expected-growth') return { ...judged, verdict: 'expected growth' };
  if (n < MIN_SAMPLES) return { ...judged, verdict: 'too few samples' };
  const grows = fit.lower > 0 && end - start > resource.tolerance;
  return { ...judged, verdict: grows ? 'GROWS' : 'bounded' };
}

/** The soak fails on any GROWS, and when a bounded resource could not be judged for want of samples. */
export function soakPassed(verdicts: readonly ResourceVerdict[]): boolean {
  return verdicts.every((v) => v.verdict !== 'GROWS' && v.verdict !== 'too few samples');
}
