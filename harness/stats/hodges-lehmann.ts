/**
 * Hodges–Lehmann shift estimates (Hodges & Lehmann 1963): the median of all pairwise differences
 * x_i − y_j (two samples) or the median of the Walsh averages (d_i + d_j)/2, i ≤ j (paired
 * differences). They are the estimates that go with Mann–Whitney and signed-rank respectively.
 *
 * There are n·m (or n(n+1)/2) terms — 12.5 million for 5,000 pairs — so instead of materialising
 * them we select the k-th smallest by bisection on the value with an O(n) two-pointer count over
 * the sorted inputs, then step through the few remaining distinct values. Exact, O(n log n) memory O(n).
 */
import { sortedAscending } from './quantile.ts';

interface PairFamily {
  total: number;
  /** Number of terms ≤ t. */
  countAtMost(t: number): number;
  /** Smallest term strictly greater than t (Infinity when none). */
  smallestAbove(t: number): number;
  min: number;
  max: number;
}

function differencesFamily(x: Float64Array, y: Float64Array): PairFamily {
  const n = x.length;
  const m = y.length;
  return {
    total: n * m,
    min: x[0]! - y[m - 1]!,
    max: x[n - 1]! - y[0]!,
    countAtMost(t) {
      // For increasing x_i, the j with x_i − y_j ≤ t are a suffix of y starting at a pointer that only moves right.
      let count = 0;
      let j = 0;
      for (let i = 0; i < n; i++) {
        while (j < m && x[i]! - y[j]! > t) j++;
        count += m - j;
      }
      return count;
    },
    smallestAbove(t) {
      // For each i the terms above t are y_0..y_{j−1}; the smallest of them uses y_{j−1}.
      let best = Infinity;
      let j = 0;
      for (let i = 0; i < n; i++) {
        while (j < m && x[i]! - y[j]! > t) j++;
        if (j > 0) best = Math.min(best, x[i]! - y[j - 1]!);
      }
      return best;
    },
  };
}

function walshFamily(d: Float64Array): PairFamily {
  const n = d.length;
  return {
    total: (n * (n + 1)) / 2,
    min: d[0]!,
    max: d[n - 1]!,
    countAtMost(t) {
      // For increasing i, the largest j with (d_i + d_j)/2 ≤ t only moves left.
      let count = 0;
      let j = n - 1;
      for (let i = 0; i < n; i++) {
        while (j >= i && (d[i]! + d[j]!) / 2 > t) j--;
        if (j < i) break;
        count += j - i + 1;
      }
      return count;
    },
    smallestAbove(t) {
      let best = Infinity;
      let j = n - 1;
      for (let i = 0; i < n; i++) {
        while (j >= i && (d[i]! + d[j]!) / 2 > t) j--;
        const next = Math.max(i, j + 1);
        if (next < n) best = Math.min(best, (d[i]! + d[next]!) / 2);
      }
      return best;
    },
  };
}

/** k-th smallest term (1-based). */
function kthTerm(family: PairFamily, k: number): number {
  let lo = family.min - Math.max(1, Math.abs(family.min)); // count(lo) = 0 < k
  let hi = family.max; // count(hi) = total ≥ k
  for (let iteration = 0; iteration < 64; iteration++) {
    const mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (family.countAtMost(mid) >= k) hi = mid;
    else lo = mid;
  }
  // Invariant: count(lo) < k ≤ count(hi); walk the distinct terms above lo until the count reaches k.
  for (;;) {
    const candidate = family.smallestAbove(lo);
    if (family.countAtMost(candidate) >= k) return candidate;
    lo = candidate;
  }
}

function medianOfFamily(family: PairFamily): number {
  const total = family.total;
  if (total % 2 === 1) return kthTerm(family, (total + 1) / 2);
  const a = kthTerm(family, total / 2);
  const b = kthTerm(family, total / 2 + 1);
  return a + 0.5 * (b - a);
}

/** Two-sample HL shift: median of x_i − y_j. */
export function hodgesLehmannShift(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length === 0 || y.length === 0) throw new Error('Hodges–Lehmann needs two non-empty samples');
  return medianOfFamily(differencesFamily(sortedAscending(x), sortedAscending(y)));
}

/** One-sample HL (pseudo-median) of paired differences: median of the Walsh averages. */
export function hodgesLehmannPaired(differences: ArrayLike<number>): number {
  if (differences.length === 0) throw new Error('Hodges–Lehmann needs at least one difference');
  return medianOfFamily(walshFamily(sortedAscending(differences)));
}
