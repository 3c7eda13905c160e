/**
 * The regression gate: a non-inferiority decision per (arm, metric) on the ratio of medians
 * candidate / baseline, from the percentile 95% bootstrap CI of compareMedians.
 *   pass         — CI upper bound ≤ 1 + threshold (non-inferior)
 *   regression   — CI lower bound > 1 + threshold, and still significant after Benjamini–Hochberg
 *   inconclusive — the CI straddles 1 + threshold (more blocks would narrow it)
 *   invalid      — missing data, too many failed trials, unmatched arms or a different environment
 * Overall: any invalid → 3, else any regression → 1, else any inconclusive → 2, else 0.
 * The overall pass needs every cell to pass: an intersection–union test, which is level α without
 * a multiplicity correction (Berger, Technometrics 24, 1982). A single regression claim, though,
 * is a union over cells and would inflate false alarms with the number of metrics gated together
 * (1 − 0.95^k), so regression claims are filtered by BH at q = α (see benjamini-hochberg.ts).
 */
import { TIMING_METRICS } from '../../harness/analyze/units.ts';
import { mannWhitneyU } from '../../harness/stats/index.ts';
import { compareBundles, type ArmMetricComparison, type BundleComparison } from '../compare/bundle-comparison.ts';
import { metricsWithSamples, type AnalyzedBundle as Bundle } from '../../harness/analyze/index.ts';
import { benjaminiHochberg } from './benjamini-hochberg.ts';
import { integrityProblems } from './integrity.ts';

export const GATE_ALPHA = 0.05;
/** Below 5 ok samples per side a median's bootstrap distribution has only a handful of distinct values; refuse rather than guess. */
export const MIN_GATE_SAMPLES = 5;
/** Default failed-trial budget: more than 1 in 20 failing means the measurement itself is suspect. */
export const DEFAULT_MAX_FAILED_FRACTION = 0.05;
export const DEFAULT_THRESHOLD = 0.05;

export type CellVerdict = 'pass' | 'regression' | 'inconclusive' | 'invalid';
export type GateVerdict = 'pass' | 'regression' | 'inconclusive' | 'invalid';

export interface GateCell {
  arm: string;
  metric: string;
  threshold: number;
  comparison: ArmMetricComparison;
  /** One-sided Mann–Whitney p of "candidate / (1 + threshold) is stochastically larger than baseline". */
  pRegression: number | null;
  /** BH-adjusted pRegression over every valid gated cell. */
  qRegression: number | null;
  verdict: CellVerdict;
  reason: string;
  /** For an inconclusive cell: extra blocks per run that would likely decide it (null when the estimate sits on the limit). */
  moreBlocks: number | null;
}

export interface GateOptions {
  /** Metrics gated together; default: the spec's compare metrics, else every `*_ms` metric of both bundles. */
  metrics?: string[];
  /** Per-metric thresholds (fractions); others use `threshold`. */
  thresholds?: Record<string, number | undefined>;
  threshold?: number;
  maxFailedFraction?: number;
  arms?: string[];
  allowEnvMismatch?: boolean;
  resamples?: number;
  /** A/A mode: the two sides are halves of this bundle (environment identical by construction; integrity checked on it). */
  aaSource?: Bundle;
}

export interface GateResult {
  verdict: GateVerdict;
  exitCode: 0 | 1 | 2 | 3;
  invalidReasons: string[];
  warnings: string[];
  cells: GateCell[];
  comparison: BundleComparison;
  maxFailedFraction: number;
}

const EXIT: Record<GateVerdict, 0 | 1 | 2 | 3> = { pass: 0, regression: 1, inconclusive: 2, invalid: 3 };

/** The spec's declared comparison metrics; else the timing metrics (ready/result/completion) both bundles have; else every `*_ms` metric both have. */
export function defaultGateMetrics(baseline: Bundle, candidate: Bundle): string[] {
  const declared = [...new Set((candidate.resolved.spec.compare ?? []).map((c) => c.metric))];
  if (declared.length > 0) return declared.sort();
  const base = metricsWithSamples(baseline.analysis);
  const shared = metricsWithSamples(candidate.analysis).filter((m) => base.includes(m));
  const timing = shared.filter((m) => (TIMING_METRICS as readonly string[]).includes(m));
  return timing.length > 0 ? timing : shared.filter((m) => m.endsWith('_ms'));
}

/** One-sided p for a regression beyond the threshold: scale the candidate down by 1 + t, then ask whether it is still larger. */
function regressionP(row: ArmMetricComparison, threshold: number): number | null {
  if (!row.result) return null;
  const scaled = row.candidate.values.map((v) => v / (1 + threshold));
  const test = mannWhitneyU(scaled, row.baseline.values);
  const centre = (scaled.length * row.baseline.values.length) / 2;
  return test.statistic > centre ? test.p / 2 : 1 - test.p / 2;
}

/** Blocks needed so the CI half-width (∝ 1/√n) drops below the distance from the estimate to the limit. */
function extraBlocks(row: ArmMetricComparison, limit: number): number | null {
  if (!row.result?.ratio_ci || row.result.ratio === null) return null;
  const { low, high } = row.result.ratio_ci.percentile;
  const halfWidth = (high - low) / 2;
  const distance = Math.abs(row.result.ratio - limit);
  if (distance < 1e-9 || halfWidth <= 0) return null;
  const n = Math.min(row.baseline.values.length, row.candidate.values.length);
  const needed = Math.ceil(n * (halfWidth / distance) ** 2);
  return Math.max(1, needed - n);
}

function failureReasons(side: string, bundle: Bundle, comparison: BundleComparison, arms: Set<string>, maxFailed: number, pick: (r: ArmMetricComparison) => ArmMetricComparison['baseline']): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const row of comparison.rows) {
    if (!arms.has(row.arm) || seen.has(row.arm)) continue;
    seen.add(row.arm);
    const s = pick(row);
    if (s.planned > 0 && s.failed / s.planned > maxFailed) {
      out.push(`${side} ${bundle.resolved.run_id}: arm ${row.arm} has ${s.failed} of ${s.planned} formal trials failed or invalid (${((s.failed / s.planned) * 100).toFixed(1)}% > allowed ${(maxFailed * 100).toFixed(1)}%)`);
    }
  }
  return out;
}

export function gateBundles(baseline: Bundle, candidate: Bundle, options: GateOptions = {}): GateResult {
  const metrics = options.metrics && options.metrics.length > 0 ? options.metrics : defaultGateMetrics(baseline, candidate);
  const maxFailed = options.maxFailedFraction ?? DEFAULT_MAX_FAILED_FRACTION;
  const comparison = compareBundles(baseline, candidate, { metrics, arms: options.arms, resamples: options.resamples });
  const invalid: string[] = [];
  const warnings: string[] = [];
  if (options.aaSource) invalid.push(...integrityProblems(options.aaSource));
  else invalid.push(...integrityProblems(baseline).map((p) => `baseline: ${p}`), ...integrityProblems(candidate).map((p) => `candidate: ${p}`));
  for (const d of comparison.env.differences) {
    const text = `environment differs on ${d.key}: baseline ${d.baseline ?? '(not recorded)'} vs candidate ${d.candidate ?? '(not recorded)'}`;
    (options.allowEnvMismatch ? warnings : invalid).push(text);
  }
  if (comparison.env.unverified.length > 0 && !options.aaSource) warnings.push(`not recorded in either bundle, comparability unverified: ${comparison.env.unverified.join(', ')}`);
  if (comparison.specDifference && !options.aaSource) warnings.push(comparison.specDifference);
  for (const a of comparison.armsOnlyInBaseline) invalid.push(`unmatched arm: ${a} is only in the baseline`);
  for (const a of comparison.armsOnlyInCandidate) invalid.push(`unmatched arm: ${a} is only in the candidate`);
  if (metrics.length === 0) invalid.push('no metric to gate: name one with --metric or in the gate file');
  if (comparison.rows.length === 0 && metrics.length > 0) invalid.push('no arm is present in both bundles');
  const gatedArms = new Set(comparison.rows.map((r) => r.arm));
  invalid.push(...failureReasons('baseline', baseline, comparison, gatedArms, maxFailed, (r) => r.baseline));
  invalid.push(...failureReasons('candidate', candidate, comparison, gatedArms, maxFailed, (r) => r.candidate));

  const cells: GateCell[] = comparison.rows.map((row) => {
    const threshold = options.thresholds?.[row.metric] ?? options.threshold ?? DEFAULT_THRESHOLD;
    const base: Omit<GateCell, 'verdict' | 'reason'> = { arm: row.arm, metric: row.metric, threshold, comparison: row, pRegression: null, qRegression: null, moreBlocks: null };
    const tooFew = Math.min(row.baseline.values.length, row.candidate.values.length) < MIN_GATE_SAMPLES;
    if (!row.result || tooFew || !row.result.ratio_ci) {
      const reason = row.missing ?? (row.result && !row.result.ratio_ci ? `ratio undefined: ${row.result.ratio_note}` : null) ?? `too few ok samples (baseline ${row.baseline.values.length}, candidate ${row.candidate.values.length}; need ≥ ${MIN_GATE_SAMPLES})`;
      invalid.push(`missing data: ${row.arm} ${row.metric}: ${reason}`);
      return { ...base, verdict: 'invalid', reason };
    }
    return { ...base, pRegression: regressionP(row, threshold), verdict: 'pass', reason: '' };
  });

  const valid = cells.filter((c) => c.verdict !== 'invalid');
  const q = benjaminiHochberg(valid.map((c) => c.pRegression ?? 1));
  valid.forEach((cell, i) => {
    cell.qRegression = q[i]!;
    const limit = 1 + cell.threshold;
    const { low, high } = cell.comparison.result!.ratio_ci!.percentile;
    if (high <= limit) {
      cell.verdict = 'pass';
      cell.reason = `CI upper ${high.toFixed(4)} ≤ ${limit.toFixed(4)}`;
    } else if (low > limit && cell.qRegression <= GATE_ALPHA) {
      cell.verdict = 'regression';
      cell.reason = `CI lower ${low.toFixed(4)} > ${limit.toFixed(4)}; BH q = ${cell.qRegression.toPrecision(3)}`;
    } else {
      cell.verdict = 'inconclusive';
      cell.moreBlocks = extraBlocks(cell.comparison, limit);
      cell.reason =
        low > limit
          ? `CI lower ${low.toFixed(4)} > ${limit.toFixed(4)} but not significant after Benjamini–Hochberg (q = ${cell.qRegression.toPrecision(3)})`
          : `CI [${low.toFixed(4)}, ${high.toFixed(4)}] straddles ${limit.toFixed(4)}`;
    }
  });

  const verdict: GateVerdict =
    invalid.length > 0 ? 'invalid' : cells.some((c) => c.verdict === 'regression') ? 'regression' : cells.some((c) => c.verdict === 'inconclusive') ? 'inconclusive' : 'pass';
  return { verdict, exitCode: EXIT[verdict], invalidReasons: [...new Set(invalid)], warnings, cells, comparison, maxFailedFraction: maxFailed };
}
