/**
 * Distribution-free confidence interval of any quantile from order statistics (binomial method,
 * Conover, Practical Nonparametric Statistics, 3rd ed., §3.2 — median-ci.ts is the p = ½ case):
 * [x_(l), x_(u)] with P(Bin(n, p) ≤ l − 1) ≤ α/2 and P(Bin(n, p) ≥ u) ≤ α/2. A side that no order
 * statistic reaches (a P99 from a few hundred values has no upper bound) is null, never the sample
 * extreme passed off as a bound. Assumes independent values: the caller says so where they are not.
 */
export interface QuantileInterval {
  low: number | null;
  high: number | null;
  method: string;
}

function binomialPmfs(n: number, p: number): Float64Array {
  const pmf = new Float64Array(n + 1);
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logChoose = 0;
  for (let k = 0; k <= n; k++) {
    pmf[k] = Math.exp(logChoose + k * logP + (n - k) * logQ);
    logChoose += Math.log(n - k) - Math.log(k + 1);
  }
  return pmf;
}

export function quantileOrderStatisticCi(values: readonly number[], p: number, level = 0.95): QuantileInterval | null {
  const n = values.length;
  if (n === 0 || !(p > 0 && p < 1)) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const alphaHalf = (1 - level) / 2;
  const pmf = binomialPmfs(n, p);
  // low: the largest l (1-based) with P(X ≤ l − 1) ≤ α/2.
  let lower = 0;
  let cdf = 0;
  for (let k = 0; k < n; k++) {
    cdf += pmf[k]!;
    if (cdf > alphaHalf) break;
    lower = k + 1;
  }
  // high: the smallest u (1-based) with P(X ≥ u) ≤ α/2.
  let upper = n + 1;
  let tail = 0;
  for (let k = n; k >= 1; k--) {
    tail += pmf[k]!;
    if (tail > alphaHalf) break;
    upper = k;
  }
  return {
    low: lower >= 1 ? sorted[lower - 1]! : null,
    high: upper <= n ? sorted[upper - 1]! : null,
    method: `order-statistic (binomial) ${Math.round(level * 100)}% CI of the ${p} quantile, x(${lower || '-'})..x(${upper <= n ? upper : '-'}) of n=${n}`,
  };
}
