/**
 * Rank-based cross-checks of a bootstrap comparison: Mann–Whitney U (two independent samples) and
 * Wilcoxon signed-rank (paired differences), two-sided, computed the way R's wilcox.test does by
 * default: the exact null distribution when n < 50 and there are no ties (or zero differences),
 * otherwise the normal approximation with tie and continuity corrections (Hollander & Wolfe,
 * Nonparametric Statistical Methods, 2nd ed., §3.1 and §4.1).
 */
import { midRanks } from './ranks.ts';
import { normalCdf } from './normal.ts';

/** R's threshold for the exact distribution (wilcox.test: exact if n < 50 and no ties). */
const EXACT_LIMIT = 50;

export interface RankTestResult {
  /** Mann–Whitney: W = U of the first sample (pairs x_i > y_j, ties ½); signed-rank: V = sum of ranks of positive differences. */
  statistic: number;
  p: number;
  method: 'exact' | 'normal approximation';
  /** Observations used (signed-rank drops zero differences, as Wilcoxon's original procedure does). */
  n: number;
}

function twoSidedNormalP(centered: number, sigma: number): number {
  if (sigma === 0) return 1;
  // Continuity correction of ½ towards the centre (Yates-style; R's default correct = TRUE).
  const z = (centered - Math.sign(centered) * 0.5) / sigma;
  return Math.min(1, 2 * Math.min(normalCdf(z), 1 - normalCdf(z)));
}

function twoSidedExactP(distribution: Float64Array, observed: number, centre: number): number {
  // Two-sided p = 2·min(P(S ≤ s), P(S ≥ s)), capped at 1 (R's psignrank/pwilcox convention).
  let tail = 0;
  if (observed > centre) for (let s = Math.ceil(observed); s < distribution.length; s++) tail += distribution[s]!;
  else for (let s = 0; s <= Math.floor(observed); s++) tail += distribution[s]!;
  return Math.min(1, 2 * tail);
}

/** Null distribution of U for sizes (m, n) by the Mann–Whitney (1947) recurrence, as probabilities. */
function mannWhitneyDistribution(m: number, n: number): Float64Array {
  // p(i, j, u) = i/(i+j)·p(i−1, j, u−j) + j/(i+j)·p(i, j−1, u); p(0, j) = p(i, 0) = [1].
  let previousRow: Float64Array[] = Array.from({ length: n + 1 }, () => Float64Array.of(1));
  for (let i = 1; i <= m; i++) {
    const row: Float64Array[] = [Float64Array.of(1)];
    for (let j = 1; j <= n; j++) {
      const out = new Float64Array(i * j + 1);
      const a = previousRow[j]!; // p(i−1, j)
      const b = row[j - 1]!; // p(i, j−1)
      const wa = i / (i + j);
      const wb = j / (i + j);
      for (let u = 0; u < a.length; u++) out[u + j] += wa * a[u]!;
      for (let u = 0; u < b.length; u++) out[u] += wb * b[u]!;
      row.push(out);
    }
    previousRow = row;
  }
  return previousRow[n]!;
}

export function mannWhitneyU(x: ArrayLike<number>, y: ArrayLike<number>): RankTestResult {
  const m = x.length;
  const n = y.length;
  if (m === 0 || n === 0) throw new Error('Mann–Whitney needs two non-empty samples');
  const pooled = new Float64Array(m + n);
  pooled.set(Array.from(x));
  pooled.set(Array.from(y), m);
  const { ranks, tieSizes } = midRanks(pooled);
  let rankSumX = 0;
  for (let i = 0; i < m; i++) rankSumX += ranks[i]!;
  const w = rankSumX - (m * (m + 1)) / 2;
  const centre = (m * n) / 2;
  if (m < EXACT_LIMIT && n < EXACT_LIMIT && tieSizes.length === 0) {
    return { statistic: w, p: twoSidedExactP(mannWhitneyDistribution(m, n), w, centre), method: 'exact', n: m + n };
  }
  const total = m + n;
  const tieTerm = tieSizes.reduce((sum, t) => sum + (t * t * t - t), 0) / (total * (total - 1));
  const sigma = Math.sqrt(((m * n) / 12) * (total + 1 - tieTerm));
  return { statistic: w, p: twoSidedNormalP(w - centre, sigma), method: 'normal approximation', n: total };
}

/** Null distribution of V (sum of the ranks 1..n carrying a + sign, each sign a fair coin). */
function signedRankDistribution(n: number): Float64Array {
  const max = (n * (n + 1)) / 2;
  let dist = new Float64Array(max + 1);
  dist[0] = 1;
  for (let r = 1; r <= n; r++) {
    const next = new Float64Array(max + 1);
    for (let s = 0; s <= max; s++) {
      const p = dist[s]!;
      if (p === 0) continue;
      next[s] += 0.5 * p;
      next[s + r] += 0.5 * p;
    }
    dist = next;
  }
  return dist;
}

/** Wilcoxon signed-rank test of paired differences d_i = x_i − y_i; null when every difference is zero. */
export function wilcoxonSignedRank(differences: ArrayLike<number>): RankTestResult | null {
  const nonzero = Array.from(differences).filter((d) => d !== 0);
  const n = nonzero.length;
  if (n === 0) return null;
  const { ranks, tieSizes } = midRanks(nonzero.map(Math.abs));
  let v = 0;
  for (let i = 0; i < n; i++) if (nonzero[i]! > 0) v += ranks[i]!;
  const centre = (n * (n + 1)) / 4;
  const hadZeros = nonzero.length !== differences.length;
  if (n < EXACT_LIMIT && tieSizes.length === 0 && !hadZeros) {
    return { statistic: v, p: twoSidedExactP(signedRankDistribution(n), v, centre), method: 'exact', n };
  }
  const tieTerm = tieSizes.reduce((sum, t) => sum + (t * t * t - t), 0) / 48;
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm);
  return { statistic: v, p: twoSidedNormalP(v - centre, sigma), method: 'normal approximation', n };
}
