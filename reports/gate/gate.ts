/**
 * The regression gate: a non-inferiority decision per (arm, metric) on the ratio candidate /
 * baseline of a quantile (P50 by default; `--statistic p90|p95` for tails), from harness/stats
 * `estimateRatioGate`:
 *   pass         — CI upper bound ≤ 1 + threshold (non-inferior)
 *   regression   — CI lower bound > 1 + threshold, and still significant after Benjamini–Hochberg
 *   inconclusive — the CI straddles 1 + threshold (more blocks would narrow it)
 *   invalid      — missing data, too many failed trials, unmatched arms, a different environment,
 *                  too few values, separated clusters under a P50 gate ("inspect clusters"), or a
 *                  ratio that cannot be read (exit 3 with the reason)
 * Three designs: interleaved A/B (two arms of one run, the recommended CI path: run offsets
 * cancel), cross-run with several baseline runs (hierarchical bootstrap over runs, then blocks),
 * and one run per side (says between-run variance is not covered unless a calibrated run sd widens it).
 * Overall: any invalid → 3, else any regression → 1, else any inconclusive → 2, else 0.
 * The overall pass needs every cell to pass: an intersection–union test, which is level α without
 * a multiplicity correction (Berger, Technometrics 24, 1982). A single regression claim, though,
 * is a union over cells and would inflate false alarms with the number of metrics gated together
 * (1 − 0.95^k), so regression claims are filtered by BH at q = α (see harness/stats/multiplicity.ts).
 */
import { TIMING_METRICS } from '../../harness/analyze/units.ts';
import {
  benjaminiHochberg,
  blocksNeeded,
  decideCell,
  estimateRatioGate,
  seedFromString,
  STATISTIC_MIN_N,
  type GateDesign,
  type GateStatistic,
  type RatioGateEstimate,
  type RunVariance,
} from '../../harness/stats/index.ts';
import { armsOf, compareBundles, type BundleComparison } from '../compare/bundle-comparison.ts';
import { compareFingerprints, fingerprint, bundleBackends } from '../bundle/environment.ts';
import type { AnalyzedBundle as Bundle } from '../../harness/analyze/index.ts';
import { dataOf, metricsWithSamples, samplesOf, trialsOf, type ArmTrials } from '../../harness/analyze/index.ts';
import { designOf, isReplicated, MIN_UNITS_FOR_INTERVAL, noIntervalText, replicatesOf } from '../../harness/analyze/metric-design.ts';

/** An arm's formal-trial counts (the analysis's ArmTrials, without the labels). */
import { integrityProblems } from './integrity.ts';
import { interleavedBuildLines } from '../bundle/arm-builds.ts';

export const GATE_ALPHA = 0.05;
/** Default failed-trial budget: more than 1 in 20 failing means the measurement itself is suspect. */
export const DEFAULT_MAX_FAILED_FRACTION = 0.05;
export const DEFAULT_THRESHOLD = 0.05;
/** Power the "≈N more blocks" hint plans for (harness/stats/power.ts). */
export const MORE_BLOCKS_POWER = 0.8;

export type CellVerdict = 'pass' | 'regression' | 'inconclusive' | 'invalid';
export type GateVerdict = 'pass' | 'regression' | 'inconclusive' | 'invalid';

export interface SideCounts extends ArmTrials {
  /** ok values per run, in run order. */
  n: number[];
  label: string;
}

export interface GateCell {
  arm: string;
  metric: string;
  threshold: number;
  statistic: GateStatistic;
  baseline: SideCounts;
  candidate: SideCounts;
  estimate: RatioGateEstimate;
  /** One-sided p of "ratio > 1 + threshold" (method in estimate.method). */
  pRegression: number | null;
  /** BH-adjusted pRegression over every valid gated cell (the family). */
  qRegression: number | null;
  verdict: CellVerdict;
  reason: string;
  /** For an inconclusive cell: extra blocks per run for 80% power to decide it (power.ts formula), null when the estimate sits on the limit. */
  moreBlocks: number | null;
}

export interface GateOptions {
  /** Metrics gated together; default: the spec's compare metrics, else the timing metrics, else every `*_ms` metric. */
  metrics?: string[];
  /** Per-metric thresholds (fractions); others use `threshold`. */
  thresholds?: Record<string, number | undefined>;
  threshold?: number;
  /** Statistic per metric; others use `statistic` (default p50). */
  statistics?: Record<string, GateStatistic | undefined>;
  statistic?: GateStatistic;
  /** Calibrated run-level sd (log scale) per metric, from `gate --calibrate`. */
  runVariance?: Record<string, RunVariance | undefined>;
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
  design: GateDesign;
  invalidReasons: string[];
  warnings: string[];
  cells: GateCell[];
  baselineRuns: string[];
  candidateRuns: string[];
  /** The multiplicity family: what the BH adjustment ran over. */
  family: string;
  /** What each side ran that is its own (arms[i].build) and what differs: the intended difference. */
  builds: string[];
  maxFailedFraction: number;
}

const EXIT: Record<GateVerdict, 0 | 1 | 2 | 3> = { pass: 0, regression: 1, inconclusive: 2, invalid: 3 };

/** The spec's declared comparison metrics; else the timing metrics (ready/result/completion) both bundles have; else every `*_ms` metric both have. */
export function defaultGateMetrics(baseline: Bundle, candidate: Bundle): string[] {
  const declared = [...new Set((candidate.resolved.spec.compare ?? []).map((c) => c.metric))];
  if (declared.length > 0) return declared.sort();
  const base = metricsWithSamples(baseline.analysis);
  // A value recorded once per cell run or per run is no sample to gate (metric-design.ts), nor is a score.
  const gateable = (m: string) => candidate.analysis.data.filter((d) => d.metric === m).every((d) => isReplicated(designOf(d).unit) && designOf(d).scale === 'continuous');
  const shared = metricsWithSamples(candidate.analysis).filter((m) => base.includes(m) && gateable(m));
  const timing = shared.filter((m) => (TIMING_METRICS as readonly string[]).includes(m));
  return timing.length > 0 ? timing : shared.filter((m) => m.endsWith('_ms'));
}

/** One value per unit of replication of an arm × metric (the copies of a per-cell value count once). */
function unitValues(bundle: Bundle, arm: string, metric: string): number[] {
  const data = dataOf(bundle.analysis, arm, metric);
  return data ? replicatesOf(data).map((o) => o.value) : [];
}

/**
 * Why a metric cannot be gated on these runs, by its kind's declaration: a score (the gate judges
 * quantile ratios; `compare` reports a reward's paired difference), or a per-cell or per-run value
 * with fewer than two units in some run ("n = 1 per run, no interval"). Null when it can.
 */
function ungateable(bundles: readonly Bundle[], arm: string, metric: string): string | null {
  const data = bundles.map((b) => dataOf(b.analysis, arm, metric)).find((d) => d !== undefined);
  if (!data) return null;
  const design = designOf(data);
  if (design.scale === 'score') return `${arm} ${metric}: a score (reward), not a timing: the gate judges quantile ratios; sandbench compare gives its paired difference with McNemar's p`;
  if (isReplicated(design.unit)) return null;
  const units = Math.min(...bundles.map((b) => unitValues(b, arm, metric).length));
  return units < MIN_UNITS_FOR_INTERVAL ? `${arm} ${metric}: ${noIntervalText(units)} (recorded once per ${design.unit === 'cell' ? 'cell run' : 'run'}, copied onto every trial): not gated` : null;
}

/** Extra blocks per run for 80% power to settle the cell (same formula as `sandbench power`). */
function extraBlocks(estimate: RatioGateEstimate, limit: number, nNow: number): number | null {
  if (estimate.ratio === null || estimate.logSe === null) return null;
  const distance = Math.abs(Math.log(estimate.ratio) - Math.log(limit));
  const needed = blocksNeeded({ se: estimate.logSe, n: nNow, distance }, MORE_BLOCKS_POWER);
  return needed === null ? null : Math.max(1, needed - nNow);
}

function failureReasons(label: string, counts: ArmTrials, arm: string, maxFailed: number): string[] {
  if (counts.planned > 0 && counts.failed / counts.planned > maxFailed) {
    return [`${label}: arm ${arm} has ${counts.failed} of ${counts.planned} formal trials failed or invalid (${((counts.failed / counts.planned) * 100).toFixed(1)}% > allowed ${(maxFailed * 100).toFixed(1)}%)`];
  }
  return [];
}

function sumCounts(list: ArmTrials[]): ArmTrials {
  const byCategory: Record<string, number> = {};
  for (const c of list) for (const [k, v] of Object.entries(c.byCategory)) byCategory[k] = (byCategory[k] ?? 0) + v;
  const sum = (pick: (c: ArmTrials) => number) => list.reduce((a, c) => a + pick(c), 0);
  return { arm: list[0]?.arm ?? '', planned: sum((c) => c.planned), ok: sum((c) => c.ok), failed: sum((c) => c.failed), byCategory, infrastructure: sum((c) => c.infrastructure), task: sum((c) => c.task) };
}

interface CellSpec {
  arm: string;
  metric: string;
  baseline: { label: string; counts: ArmTrials[]; runs: number[][] };
  candidate: { label: string; counts: ArmTrials[]; runs: number[][] };
  seedId: string;
}

function judge(specs: CellSpec[], design: GateDesign, options: GateOptions, invalid: string[], resamples: number): GateCell[] {
  const maxFailed = options.maxFailedFraction ?? DEFAULT_MAX_FAILED_FRACTION;
  const cells = specs.map((s): GateCell => {
    const threshold = options.thresholds?.[s.metric] ?? options.threshold ?? DEFAULT_THRESHOLD;
    const statistic = options.statistics?.[s.metric] ?? options.statistic ?? 'p50';
    s.baseline.counts.forEach((c, j) => invalid.push(...failureReasons(s.baseline.counts.length > 1 ? `${s.baseline.label} run ${j + 1}` : s.baseline.label, c, s.arm, maxFailed)));
    s.candidate.counts.forEach((c, j) => invalid.push(...failureReasons(s.candidate.counts.length > 1 ? `${s.candidate.label} run ${j + 1}` : s.candidate.label, c, s.arm, maxFailed)));
    const estimate = estimateRatioGate({
      statistic,
      design,
      candidateRuns: s.candidate.runs,
      baselineRuns: s.baseline.runs,
      limit: 1 + threshold,
      resamples,
      seed: seedFromString(s.seedId),
      runVariance: options.runVariance?.[s.metric] ?? null,
    });
    const side = (x: CellSpec['baseline']): SideCounts => ({ ...sumCounts(x.counts), n: x.runs.map((r) => r.length), label: x.label });
    const cell: GateCell = { arm: s.arm, metric: s.metric, threshold, statistic, baseline: side(s.baseline), candidate: side(s.candidate), estimate, pRegression: estimate.pRegression, qRegression: null, verdict: 'pass', reason: '', moreBlocks: null };
    if (estimate.blockers.length > 0) {
      cell.verdict = 'invalid';
      cell.reason = estimate.blockers.join('; ');
      invalid.push(`${s.arm} ${s.metric}: ${cell.reason}`);
    }
    return cell;
  });
  const valid = cells.filter((c) => c.verdict !== 'invalid');
  const q = benjaminiHochberg(valid.map((c) => c.pRegression ?? 1));
  valid.forEach((cell, i) => {
    cell.qRegression = cell.pRegression === null ? null : q[i]!;
    const limit = 1 + cell.threshold;
    const decision = decideCell(cell.estimate, limit, cell.qRegression ?? 0, GATE_ALPHA);
    cell.verdict = decision.decision;
    cell.reason = decision.reason;
    if (decision.decision === 'invalid') invalid.push(`${cell.arm} ${cell.metric}: ${decision.reason}`);
    if (decision.decision === 'inconclusive') cell.moreBlocks = extraBlocks(cell.estimate, limit, Math.min(...cell.baseline.n, ...cell.candidate.n));
  });
  return cells;
}

function finish(design: GateDesign, cells: GateCell[], invalid: string[], warnings: string[], baselineRuns: string[], candidateRuns: string[], options: GateOptions, builds: string[] = []): GateResult {
  const verdict: GateVerdict =
    invalid.length > 0 ? 'invalid' : cells.some((c) => c.verdict === 'regression') ? 'regression' : cells.some((c) => c.verdict === 'inconclusive') ? 'inconclusive' : 'pass';
  for (const note of new Set(cells.flatMap((c) => c.estimate.notes))) warnings.push(note);
  const valid = cells.filter((c) => c.pRegression !== null).length;
  return {
    verdict,
    exitCode: EXIT[verdict],
    design,
    invalidReasons: [...new Set(invalid)],
    warnings,
    cells,
    baselineRuns,
    candidateRuns,
    family: `this gate's ${valid} judged cell(s) (arm × metric); regression claims BH-adjusted at q = ${GATE_ALPHA}`,
    builds,
    maxFailedFraction: options.maxFailedFraction ?? DEFAULT_MAX_FAILED_FRACTION,
  };
}

function environmentChecks(comparison: BundleComparison, options: GateOptions, invalid: string[], warnings: string[]): void {
  for (const d of comparison.env.differences) {
    const text = `environment differs on ${d.key}: baseline ${d.baseline ?? '(not recorded)'} vs candidate ${d.candidate ?? '(not recorded)'}`;
    (options.allowEnvMismatch ? warnings : invalid).push(text);
  }
  if (comparison.env.unverified.length > 0 && !options.aaSource) warnings.push(`not recorded in either bundle, comparability unverified: ${comparison.env.unverified.join(', ')}`);
  if (comparison.specDifference && !options.aaSource) warnings.push(comparison.specDifference);
  for (const a of comparison.armsOnlyInBaseline) invalid.push(`unmatched arm: ${a} is only in the baseline`);
  for (const a of comparison.armsOnlyInCandidate) invalid.push(`unmatched arm: ${a} is only in the candidate`);
}

/** Every baseline (candidate) run must share the first one's environment: runs of one side are replicates. */
function sameSideEnvironment(side: string, runs: Bundle[], options: GateOptions, invalid: string[], warnings: string[]): void {
  const first = runs[0]!;
  for (const other of runs.slice(1)) {
    const backends = bundleBackends(first).filter((b) => bundleBackends(other).includes(b));
    const check = compareFingerprints(fingerprint(first, backends), fingerprint(other, backends));
    for (const d of check.differences) {
      const text = `${side} runs ${first.resolved.run_id} and ${other.resolved.run_id} differ on ${d.key} (${d.baseline ?? '—'} vs ${d.candidate ?? '—'})`;
      (options.allowEnvMismatch ? warnings : invalid).push(text);
    }
  }
}

/**
 * Cross-run gate. One run per side: independent bootstrap (widened by a calibrated run sd when
 * given). Several runs on a side: hierarchical bootstrap over runs, then blocks.
 */
export function gateBundles(baselineInput: Bundle | Bundle[], candidateInput: Bundle | Bundle[], options: GateOptions = {}): GateResult {
  const baselines = Array.isArray(baselineInput) ? baselineInput : [baselineInput];
  const candidates = Array.isArray(candidateInput) ? candidateInput : [candidateInput];
  const baseline = baselines[0]!;
  const candidate = candidates[0]!;
  const metrics = options.metrics && options.metrics.length > 0 ? options.metrics : defaultGateMetrics(baseline, candidate);
  // compareBundles supplies the arm matching and the environment check of the first pair.
  const comparison = compareBundles(baseline, candidate, { metrics, arms: options.arms, resamples: 100 });
  const invalid: string[] = [];
  const warnings: string[] = [];
  if (options.aaSource) invalid.push(...integrityProblems(options.aaSource));
  else {
    baselines.forEach((b) => invalid.push(...integrityProblems(b).map((p) => `baseline: ${p}`)));
    candidates.forEach((c) => invalid.push(...integrityProblems(c).map((p) => `candidate: ${p}`)));
  }
  environmentChecks(comparison, options, invalid, warnings);
  sameSideEnvironment('baseline', baselines, options, invalid, warnings);
  sameSideEnvironment('candidate', candidates, options, invalid, warnings);
  if (metrics.length === 0) invalid.push('no metric to gate: name one with --metric or in the gate file');
  if (comparison.rows.length === 0 && metrics.length > 0) invalid.push('no arm is present in both bundles');
  const design: GateDesign = baselines.length > 1 || candidates.length > 1 ? 'hierarchical' : 'independent';
  const values = unitValues;
  const runIds = (list: Bundle[]) => list.map((b) => b.resolved.run_id);
  const judged = comparison.rows.filter((row) => {
    const reason = ungateable([...baselines, ...candidates], row.arm, row.metric);
    if (reason) invalid.push(reason);
    return reason === null;
  });
  const specs: CellSpec[] = judged.map((row) => ({
    arm: row.arm,
    metric: row.metric,
    baseline: { label: `baseline ${runIds(baselines).join(' ')}`, counts: baselines.map((b) => trialsOf(b.analysis, row.arm)), runs: baselines.map((b) => values(b, row.arm, row.metric)) },
    candidate: { label: `candidate ${runIds(candidates).join(' ')}`, counts: candidates.map((c) => trialsOf(c.analysis, row.arm)), runs: candidates.map((c) => values(c, row.arm, row.metric)) },
    seedId: `${runIds(baselines).join('+')}:${runIds(candidates).join('+')}:${row.metric}:${row.arm}`,
  }));
  const resamples = options.resamples ?? candidate.resolved.spec.resamples ?? 5000;
  const cells = judge(specs, design, options, invalid, resamples);
  const builds = options.aaSource ? [] : [...comparison.env.intended.map((d) => `${d.key} differs as intended (an arm carries a build): ${d.baseline ?? '—'} vs ${d.candidate ?? '—'}`), ...comparison.builds];
  return finish(design, cells, invalid, warnings, runIds(baselines), runIds(candidates), options, builds);
}

/**
 * Interleaved A/B gate: baseline and candidate are two arms of ONE run, randomized within every
 * block on the same host in the same session, so run-level offsets cancel; the ratio is judged on
 * the paired blocks (a block where either arm has no ok value is dropped and counted).
 */
export function gateInterleaved(bundle: Bundle, baselineArm: string, candidateArm: string, options: GateOptions = {}): GateResult {
  const metrics = options.metrics && options.metrics.length > 0 ? options.metrics : defaultGateMetrics(bundle, bundle);
  const invalid: string[] = [...integrityProblems(bundle)];
  const warnings: string[] = [];
  const arms = new Set(armsOf(bundle));
  for (const [role, arm] of [['--baseline-arm', baselineArm], ['--candidate-arm', candidateArm]] as const) {
    if (!arms.has(arm)) invalid.push(`${role} ${arm}: no such arm in ${bundle.dir} (arms: ${[...arms].join(', ') || 'none'})`);
  }
  if (baselineArm === candidateArm) invalid.push(`--baseline-arm and --candidate-arm are both ${baselineArm}: name two different arms of the run`);
  if (metrics.length === 0) invalid.push('no metric to gate: name one with --metric or in the gate file');
  const specs: CellSpec[] = [];
  if (invalid.length === 0) {
    for (const metric of metrics) {
      const reason = ungateable([bundle], candidateArm, metric) ?? ungateable([bundle], baselineArm, metric);
      if (reason) {
        invalid.push(reason);
        continue;
      }
      const byBlock = (arm: string) => new Map(samplesOf(bundle.analysis, metric, arm).map((s) => [s.block, s.value]));
      const b = byBlock(baselineArm);
      const c = byBlock(candidateArm);
      const common = [...b.keys()].filter((k) => c.has(k)).sort((x, y) => x - y);
      const allBlocks = new Set(bundle.journal.filter((r) => !r.warmup).map((r) => r.block));
      const dropped = allBlocks.size - common.length;
      if (dropped > 0) warnings.push(`${metric}: ${dropped} of ${allBlocks.size} block(s) dropped (an arm had no ok value in them)`);
      specs.push({
        arm: `${candidateArm} vs ${baselineArm}`,
        metric,
        baseline: { label: `baseline arm ${baselineArm}`, counts: [trialsOf(bundle.analysis, baselineArm)], runs: [common.map((k) => b.get(k)!)] },
        candidate: { label: `candidate arm ${candidateArm}`, counts: [trialsOf(bundle.analysis, candidateArm)], runs: [common.map((k) => c.get(k)!)] },
        seedId: `${bundle.resolved.run_id}:interleaved:${baselineArm}:${candidateArm}:${metric}`,
      });
    }
  }
  const resamples = options.resamples ?? bundle.resolved.spec.resamples ?? 5000;
  const cells = judge(specs, 'paired', options, invalid, resamples);
  return finish('paired', cells, invalid, warnings, [`${bundle.resolved.run_id} arm ${baselineArm}`], [`${bundle.resolved.run_id} arm ${candidateArm}`], options, interleavedBuildLines(bundle, baselineArm, candidateArm));
}

export { STATISTIC_MIN_N };
