/** Diagnostics that flag, never delete: outliers, drift over the schedule, high variability. */
import { coefficientOfVariation, medianAbsoluteDeviation, sampleCorrelation } from 'simple-statistics';
import { median } from './quantile.ts';
import { midRanks } from './ranks.ts';
import { normalUpperTail } from './normal.ts';

/** Modified z-score cut-off 3.5 with the 0.6745 consistency constant (Iglewicz & Hoaglin 1993, as hyperfine uses). */
export const MAD_Z_THRESHOLD = 3.5;
const MAD_CONSISTENCY = 0.6745;

export interface OutlierFlags {
  /** One flag per input value, in input order; null when MAD = 0 (the modified z-score is undefined). */
  flags: boolean[] | null;
  count: number | null;
}

export function madOutliers(values: readonly number[]): OutlierFlags {
  if (values.length === 0) return { flags: [], count: 0 };
  const center = median(values);
  const mad = medianAbsoluteDeviation(values as number[]);
  if (mad === 0) return { flags: null, count: null };
  const flags = values.map((v) => Math.abs((MAD_CONSISTENCY * (v - center)) / mad) > MAD_Z_THRESHOLD);
  return { flags, count: flags.filter(Boolean).length };
}

export interface Drift {
  /** Spearman rank correlation of value with schedule position. */
  rho: number;
  /** Two-sided p under no drift, normal approximation z = ρ·√(n − 1) (Kendall & Stuart; fine for n ≥ 10). */
  p: number;
  drifting: boolean;
}

/** A drift is called when p < 0.01: strict, because it is checked for every arm and metric. */
export const DRIFT_P_THRESHOLD = 0.01;
export const DRIFT_MIN_N = 10;

/**
 * Spearman's ρ as the Pearson correlation of mid-ranks (correct with ties; simple-statistics'
 * sampleRankCorrelation breaks ties arbitrarily). Null below 3 values or when either side is constant.
 */
export function drift(values: readonly number[], positions: readonly number[]): Drift | null {
  const n = values.length;
  if (n < 3 || positions.length !== n) return null;
  const rv = Array.from(midRanks(values).ranks);
  const rp = Array.from(midRanks(positions).ranks);
  const constant = (r: number[]) => r.every((x) => x === r[0]);
  if (constant(rv) || constant(rp)) return null;
  const rho = sampleCorrelation(rv, rp);
  const p = Math.min(1, 2 * normalUpperTail(Math.abs(rho) * Math.sqrt(n - 1)));
  // Below 10 values the normal approximation of ρ's null distribution is poor: report ρ, call nothing.
  return { rho, p, drifting: n >= DRIFT_MIN_N && p < DRIFT_P_THRESHOLD };
}

/** Warn when the sample standard deviation exceeds 10% of the mean (pyperf's stability warning). */
export const CV_WARNING_THRESHOLD = 0.1;

export interface Variability {
  cv: number;
  warning: boolean;
}

export function variability(values: readonly number[]): Variability | null {
  if (values.length < 2) return null;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (mean === 0) return null;
  const cv = coefficientOfVariation(values as number[]);
  return { cv, warning: Math.abs(cv) > CV_WARNING_THRESHOLD };
}
