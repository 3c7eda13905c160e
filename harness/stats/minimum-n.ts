/**
 * The smallest sample from which sandbench draws a conclusion. Derivation: with n pairs, the
 * smallest two-sided p the exact Wilcoxon signed-rank test can reach is 2 / 2^n (every difference
 * of one sign): 0.0625 at n = 5, 0.03125 at n = 6. Below 6 pairs no rank test can reject at 5%,
 * and the bootstrap's percentile interval is badly anti-conservative (null false-verdict rate 52%
 * at n = 2, 25% at n = 3, 11% at n = 4 in the issue-13 audit). So below MIN_PAIRS every comparison
 * says `insufficient data`, is marked underpowered, and its interval is printed for information only.
 * Unpaired samples use the same floor on the smaller arm (the exact Mann–Whitney minimum p at 6 vs 6
 * is 2/924 ≈ 0.002; at 5 vs 5 it is 0.008, so the signed-rank floor is the binding, simpler rule).
 */
export const SIGNIFICANCE_LEVEL = 0.05;

/** Smallest two-sided p-value of the exact signed-rank test with n non-zero differences: 2 / 2^n. */
export function minimumSignedRankP(n: number): number {
  return Math.min(1, 2 / 2 ** n);
}

/** The smallest n whose exact signed-rank test can reach p < alpha. */
export function minimumPairsFor(alpha: number): number {
  let n = 1;
  while (!(minimumSignedRankP(n) < alpha)) n++;
  return n;
}

/** 6 at α = 0.05. */
export const MIN_PAIRS = minimumPairsFor(SIGNIFICANCE_LEVEL);

export const INSUFFICIENT_DATA = 'insufficient data';

export function belowMinimum(n: number): boolean {
  return n < MIN_PAIRS;
}

export function insufficientNote(n: number, what = 'pairs'): string {
  return `${n} ${what} < ${MIN_PAIRS} (the smallest n at which an exact two-sided signed-rank test can reach p < ${SIGNIFICANCE_LEVEL}): interval for information only`;
}
