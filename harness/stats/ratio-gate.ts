/**
 * The gate's test statistic for one (arm, metric) cell: the ratio candidate / baseline of a
 * quantile (P50, P90 or P95) with a 95% interval, the one-sided p of "regression beyond the limit",
 * and every reason the cell cannot be judged. reports/gate turns cells into verdicts (BH across
 * cells, exit codes); this module is pure: arrays and a seed in, a plain object out.
 *
 * Designs (quantile-bootstrap.ts):
 *   paired       — interleaved A/B: both arms in every block of one run; run offsets cancel.
 *   independent  — one run per side; the percentile interval covers within-run variance only,
 *                  widened by a calibrated run sd τ (sandbench gate --calibrate) when one is given:
 *                  log half-widths become √(h² + (q·τ·√2)²), q the t quantile on τ's df.
 *   hierarchical — ≥ 2 runs on a side: runs, then blocks resampled; the interval is the estimate
 *                  ± t_{ν, 0.975} · bootstrap SE, ν = Σ(runs − 1) (a run-level variance from a few
 *                  runs needs t, not z). A single-run side gets its run offset as N(0, τ²), τ from
 *                  the calibration or else from the other side's runs.
 */
import type { Interval } from './bootstrap.ts';
import { detectClusters } from './clusters.ts';
import { MIN_PAIRS } from './minimum-n.ts';
import { normalCdf } from './normal.ts';
import { replicateSe, Z_975 } from './power.ts';
import { quantileSorted, sortedAscending } from './quantile.ts';
import {
  difference,
  hierarchicalLogRatioReplicates,
  independentLogRatioReplicates,
  logStatistic,
  pairedLogRatioReplicates,
} from './quantile-bootstrap.ts';
import { studentTCdf, studentTQuantile } from './student-t.ts';
import { BOOTSTRAP_PRNG_NAME } from './index-sampler.ts';
import { percentileInterval } from './bootstrap.ts';

export type GateStatistic = 'p50' | 'p90' | 'p95';
export const GATE_STATISTICS: readonly GateStatistic[] = ['p50', 'p90', 'p95'];
export const STATISTIC_P: Record<GateStatistic, number> = { p50: 0.5, p90: 0.9, p95: 0.95 };
/**
 * Minimum ok values per run: P50 from the signed-rank floor (minimum-n.ts); P90 from 20 (two
 * order statistics above it); P95 from 30 (below that it extrapolates from one or two points).
 */
export const STATISTIC_MIN_N: Record<GateStatistic, number> = { p50: MIN_PAIRS, p90: 20, p95: 30 };

export type GateDesign = 'paired' | 'independent' | 'hierarchical';

export interface RunVariance {
  /** Run-level sd of the log statistic. */
  sd: number;
  /** Degrees of freedom of its estimate (A/A runs − 1); Infinity when treated as known. */
  df: number;
  source: string;
}

export interface RatioGateInput {
  statistic: GateStatistic;
  design: GateDesign;
  /** paired: one run each, candidate[0][i] and baseline[0][i] from block i; independent: one run each; hierarchical: any. */
  candidateRuns: number[][];
  baselineRuns: number[][];
  /** Non-inferiority limit on the ratio, 1 + threshold. */
  limit: number;
  resamples: number;
  seed: number;
  runVariance?: RunVariance | null;
}

export interface RatioGateEstimate {
  statistic: GateStatistic;
  design: GateDesign;
  candidateStatistic: number | null;
  baselineStatistic: number | null;
  ratio: number | null;
  interval: Interval | null;
  /** SE of the log ratio the interval implies (for "more blocks"); null without an interval. */
  logSe: number | null;
  /** One-sided p of "true ratio > limit". */
  pRegression: number | null;
  /** When the ratio is undefined (a statistic ≤ 0): the difference candidate − baseline and its interval. */
  difference: number | null;
  differenceInterval: Interval | null;
  /** Why the cell cannot be judged on the ratio; empty when it can. */
  blockers: string[];
  /** True when a side is split into clusters and the statistic is the P50. */
  clusters: boolean;
  runVarianceCovered: boolean;
  notes: string[];
  method: string;
  n: { candidate: number; baseline: number; candidateRuns: number; baselineRuns: number };
}

function pooledStatistic(runs: number[][], p: number): number {
  return quantileSorted(sortedAscending(runs.flat()), p);
}

function bootstrapP(sortedLogReplicates: Float64Array, logLimit: number): number {
  // One-sided bootstrap p of "ratio ≤ limit" being false: the share of replicates at or below the limit (with the +1 rule).
  let atOrBelow = 0;
  for (let i = 0; i < sortedLogReplicates.length && sortedLogReplicates[i]! <= logLimit; i++) atOrBelow++;
  return (atOrBelow + 1) / (sortedLogReplicates.length + 1);
}

export function estimateRatioGate(input: RatioGateInput): RatioGateEstimate {
  const { statistic, design, candidateRuns, baselineRuns, limit, resamples, seed } = input;
  const p = STATISTIC_P[statistic];
  const minN = STATISTIC_MIN_N[statistic];
  const blockers: string[] = [];
  const notes: string[] = [];
  const nC = candidateRuns.reduce((a, r) => a + r.length, 0);
  const nB = baselineRuns.reduce((a, r) => a + r.length, 0);
  const n = { candidate: nC, baseline: nB, candidateRuns: candidateRuns.length, baselineRuns: baselineRuns.length };
  const empty: RatioGateEstimate = {
    statistic, design, candidateStatistic: null, baselineStatistic: null, ratio: null, interval: null, logSe: null, pRegression: null,
    difference: null, differenceInterval: null, blockers, clusters: false, runVarianceCovered: design === 'paired', notes, method: '', n,
  };
  if (design !== 'hierarchical' && (candidateRuns.length !== 1 || baselineRuns.length !== 1)) throw new Error(`estimateRatioGate: design ${design} takes one run per side`);
  if (design === 'paired' && candidateRuns[0]!.length !== baselineRuns[0]!.length) throw new Error('estimateRatioGate: paired design needs equal block counts');
  for (const [side, runs] of [['candidate', candidateRuns], ['baseline', baselineRuns]] as const) {
    runs.forEach((run, j) => {
      const where = runs.length > 1 ? `${side} run ${j + 1}` : side;
      if (run.length < minN) blockers.push(`too few ok values for ${statistic.toUpperCase()}: ${where} has ${run.length}, need ≥ ${minN}`);
      else if (statistic === 'p50' && detectClusters(run).distribution === 'separated-clusters') {
        empty.clusters = true;
        blockers.push(`inspect clusters: ${where} is split into separated clusters, so its P50 describes neither; gate a tail (--statistic p90|p95) or fix the bimodality`);
      }
    });
  }
  if (blockers.length > 0) return empty;

  const candidateStatistic = pooledStatistic(candidateRuns, p);
  const baselineStatistic = pooledStatistic(baselineRuns, p);
  const base = { ...empty, candidateStatistic, baselineStatistic };
  const designText =
    design === 'paired'
      ? `interleaved A/B: paired-block bootstrap over ${candidateRuns[0]!.length} blocks of one run (run offsets cancel)`
      : design === 'independent'
        ? `two runs: independent bootstrap (n=${nB} baseline, ${nC} candidate)`
        : `hierarchical bootstrap: ${baselineRuns.length} baseline run(s), ${candidateRuns.length} candidate run(s); runs, then blocks within runs`;
  const tail = `${resamples} resamples; ${BOOTSTRAP_PRNG_NAME}; seed ${seed}`;

  const allPositive = candidateRuns.every((r) => r.every((v) => v > 0)) && baselineRuns.every((r) => r.every((v) => v > 0));
  if (!(candidateStatistic > 0 && baselineStatistic > 0) || !allPositive) {
    // A ratio needs positive statistics in every resample: decide on the difference instead.
    if (design === 'hierarchical') {
      blockers.push(`ratio undefined (a value ≤ 0; baseline ${statistic.toUpperCase()} ${baselineStatistic}, candidate ${candidateStatistic}) and the hierarchical design has no difference rule: gate single runs or interleaved arms`);
      return base;
    }
    const reps = (design === 'paired' ? pairedLogRatioReplicates : independentLogRatioReplicates)(candidateRuns[0]!, baselineRuns[0]!, p, resamples, seed, difference).sort();
    return {
      ...base,
      difference: candidateStatistic - baselineStatistic,
      differenceInterval: percentileInterval(reps),
      notes: [...notes, `ratio undefined: a value ≤ 0 (baseline ${statistic.toUpperCase()} ${baselineStatistic}, candidate ${candidateStatistic}); decided on the difference`],
      method: `${designText}; difference of ${statistic.toUpperCase()}s, percentile 95% CI; ${tail}`,
    };
  }

  const estimate = logStatistic(candidateRuns.flat(), p) - logStatistic(baselineRuns.flat(), p);
  const logLimit = Math.log(limit);
  const rv = input.runVariance ?? null;
  if (design === 'paired' || design === 'independent') {
    const reps = (design === 'paired' ? pairedLogRatioReplicates : independentLogRatioReplicates)(candidateRuns[0]!, baselineRuns[0]!, p, resamples, seed).sort();
    const pct = percentileInterval(reps);
    const se = replicateSe(reps);
    if (design === 'paired' || !rv) {
      if (design === 'independent') notes.push('between-run variance not covered: one run per side and no calibrated run variance (sandbench gate --calibrate <A/A runs>); run-level offsets can make this gate too confident');
      return {
        ...base,
        ratio: Math.exp(estimate),
        interval: { low: Math.exp(pct.low), high: Math.exp(pct.high) },
        logSe: se,
        pRegression: bootstrapP(reps, logLimit),
        runVarianceCovered: design === 'paired',
        notes,
        method: `${designText}; ratio of ${statistic.toUpperCase()}s, percentile 95% CI on the log scale; ${tail}`,
      };
    }
    // Widen by the calibrated run term: two runs, each with its own offset, so the log ratio carries 2τ².
    const q = Number.isFinite(rv.df) ? studentTQuantile(0.975, rv.df) : Z_975;
    const runTerm = q * rv.sd * Math.SQRT2;
    const lowW = Math.hypot(estimate - pct.low, runTerm);
    const highW = Math.hypot(pct.high - estimate, runTerm);
    const seTotal = Math.hypot(se, rv.sd * Math.SQRT2);
    const z = (estimate - logLimit) / seTotal;
    return {
      ...base,
      ratio: Math.exp(estimate),
      interval: { low: Math.exp(estimate - lowW), high: Math.exp(estimate + highW) },
      logSe: seTotal,
      pRegression: 1 - (Number.isFinite(rv.df) ? studentTCdf(z, rv.df) : normalCdf(z)),
      runVarianceCovered: true,
      notes,
      method: `${designText}; ratio of ${statistic.toUpperCase()}s, percentile 95% CI on the log scale widened by the run-variance term √2·τ (τ = ${rv.sd.toPrecision(3)}, ${rv.source}); ${tail}`,
    };
  }

  // Hierarchical.
  const single = candidateRuns.length === 1 || baselineRuns.length === 1;
  const h0 = hierarchicalLogRatioReplicates(candidateRuns, baselineRuns, { p, resamples: 1, seed, singleRunSd: 0 });
  const estimated = h0.betweenRunVariance !== null ? { sd: Math.sqrt(h0.betweenRunVariance), df: h0.betweenRunDf, source: `estimated from the runs (${h0.betweenRunDf} df)` } : null;
  const term = rv && rv.sd > 0 ? rv : estimated;
  const h = hierarchicalLogRatioReplicates(candidateRuns, baselineRuns, { p, resamples, seed, singleRunSd: single && term ? term.sd : 0 });
  const se = replicateSe(h.replicates);
  const df = h.betweenRunDf + (term === rv && rv && Number.isFinite(rv.df) ? rv.df : 0);
  const q = df > 0 ? studentTQuantile(0.975, df) : Z_975;
  const t = (h.estimate - logLimit) / se;
  return {
    ...base,
    ratio: Math.exp(h.estimate),
    interval: { low: Math.exp(h.estimate - q * se), high: Math.exp(h.estimate + q * se) },
    logSe: se,
    pRegression: se > 0 ? 1 - (df > 0 ? studentTCdf(t, df) : normalCdf(t)) : h.estimate > logLimit ? 0 : 1,
    runVarianceCovered: true,
    notes,
    method: `${designText}; mean of runs' log ${statistic.toUpperCase()}s, 95% CI = estimate ± t(${df} df)·bootstrap SE${single && term ? `; single-run side's offset drawn with τ = ${term.sd.toPrecision(3)} (${term.source})` : ''}; ${tail}`,
  };
}

export type CellDecision = 'pass' | 'regression' | 'inconclusive' | 'invalid';

/**
 * Non-inferiority reading of one estimate: pass when the interval's upper end is ≤ the limit,
 * regression when its lower end is above it and the family-adjusted p (`q`) is ≤ alpha, else
 * inconclusive. Undefined ratios decide on the difference: from a baseline of 0 any increase is an
 * unbounded relative slowdown, so the difference interval above 0 is a regression and at or below
 * 0 a pass; a difference interval straddling 0 cannot be judged (invalid, exit 3).
 */
export function decideCell(e: RatioGateEstimate, limit: number, q: number | null, alpha = 0.05): { decision: CellDecision; reason: string } {
  if (e.blockers.length > 0) return { decision: 'invalid', reason: e.blockers.join('; ') };
  if (e.ratio === null || !e.interval) {
    const d = e.differenceInterval;
    if (!d) return { decision: 'invalid', reason: 'no interval' };
    if (d.high <= 0) return { decision: 'pass', reason: `ratio undefined; difference CI [${d.low}, ${d.high}] ≤ 0 (candidate not larger)` };
    if (d.low > 0 && (e.baselineStatistic ?? 0) <= 0) return { decision: 'regression', reason: `ratio undefined (baseline ${e.statistic.toUpperCase()} ${e.baselineStatistic}); difference CI [${d.low}, ${d.high}] > 0` };
    return { decision: 'invalid', reason: `ratio undefined and the difference CI [${d.low}, ${d.high}] cannot be read against a relative threshold` };
  }
  const { low, high } = e.interval;
  if (high <= limit) return { decision: 'pass', reason: `CI upper ${high.toFixed(4)} ≤ ${limit.toFixed(4)}` };
  if (low > limit && q !== null && q <= alpha) return { decision: 'regression', reason: `CI lower ${low.toFixed(4)} > ${limit.toFixed(4)}; adjusted p = ${q.toPrecision(3)}` };
  if (low > limit) return { decision: 'inconclusive', reason: `CI lower ${low.toFixed(4)} > ${limit.toFixed(4)} but not significant after multiplicity adjustment (p = ${q?.toPrecision(3)})` };
  return { decision: 'inconclusive', reason: `CI [${low.toFixed(4)}, ${high.toFixed(4)}] straddles ${limit.toFixed(4)}` };
}
