/**
 * Theil–Sen slope (Theil 1950; Sen 1968) with Sen's rank-based confidence interval (Hollander &
 * Wolfe, Nonparametric Statistical Methods, 3rd ed., §9.4): the median of every pairwise slope
 * (y_j − y_i)/(x_j − x_i), i < j, x_i ≠ x_j. The interval takes the pairwise slopes whose ranks are
 * (N ∓ C)/2 with C = z_{1−α/2}·√Var(S), S being Kendall's statistic of (x, y) and Var(S) corrected
 * for ties in y (count series are mostly ties) and in x.
 *
 * Why rank-based and not a bootstrap: it is exact in its ranks, deterministic (a soak verdict must not
 * depend on a resampling seed), and robust to the few outliers a shared machine produces (a sample
 * taken while another engineer's suite held 40 containers moves the estimate by one pairwise slope).
 * Its assumption is independent errors: serially correlated series (a resource that rises and falls
 * with a campaign cycle) make it too narrow, which is why callers pair it with a practical floor
 * on the growth itself (scripts/soak/verdict.ts).
 */
import { normalQuantile } from './normal.ts';

export interface SlopeEstimate {
  /** Number of (x, y) points. */
  n: number;
  /** Pairwise slopes with distinct x (N = n(n−1)/2 when every x differs). */
  pairs: number;
  slope: number;
  /** Two-sided `confidence` interval; NaN when n < 3 or the interval's ranks fall outside 1..N. */
  lower: number;
  upper: number;
  confidence: number;
}

/** Σ t(t−1)(2t+5) over the groups of tied values (the tie term of Var(S)). */
function tieTerm(values: readonly number[]): number {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let sum = 0;
  for (const t of counts.values()) sum += t * (t - 1) * (2 * t + 5);
  return sum;
}

/** Var(S) of Kendall's S under no association, with the tie correction for both x and y. */
export function kendallVariance(x: readonly number[], y: readonly number[]): number {
  const n = x.length;
  return (n * (n - 1) * (2 * n + 5) - tieTerm(x) - tieTerm(y)) / 18;
}

export function theilSen(x: readonly number[], y: readonly number[], confidence = 0.95): SlopeEstimate {
  if (x.length !== y.length) throw new Error(`theilSen: ${x.length} x values for ${y.length} y values`);
  if (!(confidence > 0 && confidence < 1)) throw new Error(`theilSen: confidence ${confidence} is not in (0, 1)`);
  const n = x.length;
  const slopes: number[] = [];
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (x[j] !== x[i]) slopes.push((y[j]! - y[i]!) / (x[j]! - x[i]!));
  slopes.sort((a, b) => a - b);
  const pairs = slopes.length;
  const empty = { n, pairs, slope: NaN, lower: NaN, upper: NaN, confidence };
  if (pairs === 0) return empty;
  const mid = pairs >> 1;
  const slope = pairs % 2 === 1 ? slopes[mid]! : (slopes[mid - 1]! + slopes[mid]!) / 2;
  if (n < 3) return { ...empty, slope };
  const c = normalQuantile(1 - (1 - confidence) / 2) * Math.sqrt(kendallVariance(x, y));
  // 1-based ranks M1 = (N − C)/2 and M2 + 1 = (N + C)/2 + 1, rounded to the nearest rank (H&W eq. 9.38–9.39).
  const lowerRank = Math.round((pairs - c) / 2);
  const upperRank = Math.round((pairs + c) / 2) + 1;
  const inRange = (rank: number) => rank >= 1 && rank <= pairs;
  return {
    n,
    pairs,
    slope,
    lower: inRange(lowerRank) ? slopes[lowerRank - 1]! : NaN,
    upper: inRange(upperRank) ? slopes[upperRank - 1]! : NaN,
    confidence,
  };
}
