/**
 * Blocks needed, and power, for a ratio judged on the log scale with a 95% two-sided interval
 * (one-sided 2.5% per decision). The standard error of a log ratio falls as 1/√n, so from a
 * pilot's SE at n_pilot blocks:
 *   SE(n) = SE_pilot · √(n_pilot / n)
 *   power(n) = Φ(distance / SE(n) − z_{0.975})
 *   n = n_pilot · ((z_{0.975} + z_power) · SE_pilot / distance)²
 * where distance = |log(true ratio) − log(limit)|: log(1 + effect) both for detecting an effect of
 * that size (true ratio 1 + effect vs 1) and for passing non-inferiority at that threshold when the
 * true ratio is 1. For lognormal timings with sd σ, SE of one run's log median ≈ 1.2533·σ/√n
 * (√(π/2), the median's asymptotic efficiency), so two independent runs give 1.2533·σ·√(2/n):
 * an A/A pass at 5% with 80% power then needs ≈ 103 blocks at σ = 0.1 and ≈ 930 at σ = 0.3.
 * The gate's "≈N more blocks" and `sandbench power` both use these functions.
 */
import { normalCdf, normalQuantile } from './normal.ts';

export const Z_975 = normalQuantile(0.975);
/** √(π/2): asymptotic SE of a normal sample's median in units of σ/√n. */
export const MEDIAN_SE_FACTOR = Math.sqrt(Math.PI / 2);

export interface PowerInput {
  /** SE of the log ratio measured at `n` blocks per run. */
  se: number;
  n: number;
  /** |log(true ratio) − log(limit)|. */
  distance: number;
}

export function predictedPower(input: PowerInput, atN = input.n): number {
  const { se, n, distance } = input;
  if (!(se > 0) || !(distance > 0)) return distance > 0 ? 1 : 0;
  const seAt = se * Math.sqrt(n / atN);
  return normalCdf(distance / seAt - Z_975);
}

/** Blocks per run for the wanted power (null when the SE is 0 or the distance is 0). */
export function blocksNeeded(input: PowerInput, power = 0.8): number | null {
  const { se, n, distance } = input;
  if (!(power > 0 && power < 1)) throw new Error(`blocksNeeded: power must be in (0, 1), got ${power}`);
  if (!(se > 0) || !(distance > 0) || !Number.isFinite(distance)) return null;
  return Math.max(1, Math.ceil(n * (((Z_975 + normalQuantile(power)) * se) / distance) ** 2));
}

/** log(1 + effect): the distance for detecting `effect`, or for passing non-inferiority at `effect` when the true ratio is 1. */
export function effectDistance(effect: number): number {
  if (!(effect > 0)) throw new Error(`effect must be positive, got ${effect}`);
  return Math.log1p(effect);
}

/** SE of a log ratio read off a 95% interval on the log scale: (log high − log low) / (2 · 1.96). */
export function seFromLogInterval(logLow: number, logHigh: number): number {
  return (logHigh - logLow) / (2 * Z_975);
}

/** Sample standard deviation of bootstrap replicates: the SE of their statistic. */
export function replicateSe(replicates: ArrayLike<number>): number {
  const n = replicates.length;
  let s = 0;
  let s2 = 0;
  for (let i = 0; i < n; i++) {
    s += replicates[i]!;
    s2 += replicates[i]! * replicates[i]!;
  }
  return Math.sqrt(Math.max(0, (s2 - (s * s) / n) / (n - 1)));
}
