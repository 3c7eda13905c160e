/**
 * Distribution-free confidence interval of one arm's median from order statistics (binomial
 * method: Conover, Practical Nonparametric Statistics, 3rd ed., §3.2; Hahn & Meeker 1991). Exact
 * coverage ≥ the nominal level for any continuous distribution, no resampling, so the per-arm P50
 * in a report can carry a CI without a second bootstrap. Null below n = 6, where no two order
 * statistics reach 95%.
 */
export interface MedianInterval {
  low: number;
  high: number;
  /** Guaranteed coverage of [x_(l), x_(n−l+1)]. */
  coverage: number;
  method: string;
}

export function medianOrderStatisticCi(values: readonly number[], level = 0.95): MedianInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const alphaHalf = (1 - level) / 2;
  // Largest l (1-based) with P(Binomial(n, ½) ≤ l − 1) ≤ α/2; cumulative sum in log space so large n cannot underflow the whole tail.
  let logChoose = 0;
  const logHalfN = n * Math.log(0.5);
  let cdf = 0;
  let l = 0;
  for (let k = 0; k < n; k++) {
    cdf += Math.exp(logChoose + logHalfN);
    if (cdf > alphaHalf) break;
    l = k + 1;
    logChoose += Math.log(n - k) - Math.log(k + 1);
  }
  if (l < 1) return null;
  const tail = cdfBinomialHalf(n, l - 1);
  return {
    low: sorted[l - 1]!,
    high: sorted[n - l]!,
    coverage: 1 - 2 * tail,
    method: `order-statistic (binomial) CI of the median, x(${l})..x(${n - l + 1}) of n=${n}`,
  };
}

function cdfBinomialHalf(n: number, upTo: number): number {
  let logChoose = 0;
  let sum = 0;
  for (let k = 0; k <= upTo; k++) {
    sum += Math.exp(logChoose + n * Math.log(0.5));
    logChoose += Math.log(n - k) - Math.log(k + 1);
  }
  return sum;
}
