/**
 * Coarse timer resolution: when values repeat heavily (e.g. whole milliseconds around 20 ms), the
 * median's bootstrap distribution is lumpy, percentile intervals over-cover (98.7–99.9% for a
 * nominal 95% in the issue-13 audit) and power collapses (7–9% for a 5% shift at n = 20). Warned
 * when fewer than half the values are distinct.
 */
export const COARSE_DISTINCT_FRACTION = 0.5;
/** Ties among very few values are not informative about resolution. */
const MIN_N = 10;

export function coarseResolution(values: readonly number[]): string | null {
  if (values.length < MIN_N) return null;
  const distinct = new Set(values).size;
  if (distinct / values.length >= COARSE_DISTINCT_FRACTION) return null;
  return `coarse resolution: ${distinct} distinct values among ${values.length} (heavy ties); intervals are conservative and small shifts go undetected — record finer timings`;
}
