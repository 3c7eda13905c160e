/**
 * Percentiles by linear interpolation between order statistics: Hyndman & Fan (1996) type 7, the
 * default of R's quantile() and NumPy's percentile, and the definition the published study uses.
 * (simple-statistics' quantileSorted uses a different rule, so it is not used here.)
 */

/** Type-7 quantile of an ascending array: h = (n − 1)·p, x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋+1] − x[⌊h⌋]). */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) throw new Error('quantile of an empty sample');
  if (!(p >= 0 && p <= 1)) throw new Error(`quantile probability ${p} is outside [0, 1]`);
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (h - lo) * (b - a);
}

export function sortedAscending(values: ArrayLike<number>): Float64Array {
  // Float64Array.sort is numeric (not lexicographic) and fast.
  return Float64Array.from(values).sort();
}

export function quantile(values: ArrayLike<number>, p: number): number {
  return quantileSorted(sortedAscending(values), p);
}

/** Median = type-7 quantile at 0.5 (the mean of the two middle values when n is even). */
export function median(values: ArrayLike<number>): number {
  return quantile(values, 0.5);
}
