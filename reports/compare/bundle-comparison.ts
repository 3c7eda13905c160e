/**
 * Candidate bundle vs baseline bundle, arm by arm and metric by metric: ratio and difference of
 * medians with bootstrap CIs from harness/stats `compareMedians`. Unpaired (independent
 * resampling): two runs share no blocks, so there is nothing to pair across them.
 * Two exceptions, both declared by the kind (harness/analyze/metric-design.ts):
 * - a value recorded once per cell run or per run is one value, however many records copy it: the
 *   two are shown side by side with "n = 1 per run, no interval", never a zero-width interval;
 * - a score (a reward) of two runs of one spec and seed is compared over the matched attempts (the
 *   same task and path in both runs): the paired difference in success rate with Newcombe's
 *   interval and McNemar's exact p, or the paired difference of means for non-binary scores.
 */
import { compareMedians, comparePairedScores, median, type MedianComparison, type PairedScoreComparison } from '../../harness/stats/index.ts';
import { bundleBackends, compareFingerprints, fingerprint, type FingerprintCheck, type FingerprintDifference } from '../bundle/environment.ts';
import { crossRunBuildLines, separateIntended } from '../bundle/arm-builds.ts';
import { armsWithTrials, dataOf, metricsWithSamples, trialsOf, unitOf, type AnalyzedBundle, type ArmTrials } from '../../harness/analyze/index.ts';
import { designOf, isReplicated, MIN_UNITS_FOR_INTERVAL, noIntervalText, replicatesOf, type MetricDesign } from '../../harness/analyze/metric-design.ts';
import type { Observation } from '../../harness/analyze/arm-metric.ts';

type Bundle = AnalyzedBundle;

export interface SideStats extends ArmTrials {
  /** One value per unit of replication (per cell run or per run for such metrics, not the copies). */
  values: number[];
  median: number | null;
  /** The mean, for scores (a success rate when 0/1). */
  mean: number | null;
}

export interface ArmMetricComparison {
  arm: string;
  metric: string;
  unit: string;
  /** What one value stands for (the candidate kind's declaration). */
  design: MetricDesign;
  baseline: SideStats;
  candidate: SideStats;
  /** Null when either side has no ok sample (absence is a state, not a zero), for scores and for unreplicated values. */
  result: MedianComparison | null;
  /** A score's paired comparison over the attempts matched across the runs. */
  score: PairedScoreComparison | null;
  /** Set instead of an interval for a per-cell or per-run value with fewer than two units on a side. */
  noInterval: string | null;
  missing: string | null;
}

export interface BundleComparison {
  baselineRun: string;
  candidateRun: string;
  /** `intended`: differences explained by the arms' builds (arms[i].build), never a refusal. */
  env: FingerprintCheck & { intended: FingerprintDifference[] };
  /** Per shared arm, what its build changed between the runs (environment.json `arms`). */
  builds: string[];
  armsOnlyInBaseline: string[];
  armsOnlyInCandidate: string[];
  metricsOnlyInBaseline: string[];
  metricsOnlyInCandidate: string[];
  /** Set when the two specs differ (a note, not a refusal: a changed task is often the point of the comparison). */
  specDifference: string | null;
  rows: ArmMetricComparison[];
}

function observationsOf(bundle: Bundle, arm: string, metric: string): Observation[] {
  const data = dataOf(bundle.analysis, arm, metric);
  return data ? replicatesOf(data) : [];
}

function side(bundle: Bundle, arm: string, metric: string): SideStats {
  const values = observationsOf(bundle, arm, metric).map((o) => o.value);
  return { ...trialsOf(bundle.analysis, arm), values, median: values.length > 0 ? median(values) : null, mean: values.length > 0 ? values.reduce((a, b) => a + b, 0) / values.length : null };
}

/** The metric's declaration: the candidate's analysis, else the baseline's (an arm one run lacks has none). */
function metricDesign(baseline: Bundle, candidate: Bundle, arm: string, metric: string): MetricDesign {
  const data = dataOf(candidate.analysis, arm, metric) ?? dataOf(baseline.analysis, arm, metric);
  return designOf(data ?? { observations: [] });
}

/**
 * Scores matched by the kind's pairing key (block and attempt index for rollout), which names the
 * same task and path in both runs only when they share the seed; null with the reason otherwise.
 */
function matchedScores(baseline: Bundle, candidate: Bundle, arm: string, metric: string): { baseline: number[]; candidate: number[] } | string {
  if (baseline.resolved.spec.seed !== candidate.resolved.spec.seed) return `the runs used different seeds (${baseline.resolved.spec.seed} vs ${candidate.resolved.spec.seed}): attempts are not matched, no paired comparison`;
  const keyed = (bundle: Bundle): Map<string, number> | null => {
    const map = new Map<string, number>();
    for (const o of observationsOf(bundle, arm, metric)) {
      const key = o.pair ?? o.block;
      if (key === null || map.has(key)) return null;
      map.set(key, o.value);
    }
    return map;
  };
  const b = keyed(baseline);
  const c = keyed(candidate);
  if (!b || !c) return 'a pairing key repeats within a run: attempts cannot be matched, no paired comparison';
  const common = [...c.keys()].filter((k) => b.has(k)).sort();
  if (common.length === 0) return 'no attempt is valid in both runs: no paired comparison';
  return { baseline: common.map((k) => b.get(k)!), candidate: common.map((k) => c.get(k)!) };
}

export interface CompareOptions {
  resamples?: number;
  /** Restrict to these metrics (default: every metric either bundle reports). */
  metrics?: readonly string[];
  /** Restrict to these arms (default: every arm either bundle has). */
  arms?: readonly string[];
}

/** Arms (density: cells, as the kind groups them) with at least one formal trial, in the analysis's order. */
export function armsOf(bundle: Bundle): string[] {
  return armsWithTrials(bundle.analysis);
}

export function compareBundles(baseline: Bundle, candidate: Bundle, options: CompareOptions = {}): BundleComparison {
  const baseArms = armsOf(baseline);
  const candArms = armsOf(candidate);
  const wantedArm = (a: string) => !options.arms || options.arms.includes(a);
  const sharedArms = baseArms.filter((a) => candArms.includes(a) && wantedArm(a));
  const baseMetrics = metricsWithSamples(baseline.analysis);
  const candMetrics = metricsWithSamples(candidate.analysis);
  const metrics = options.metrics ? [...options.metrics] : [...new Set([...baseMetrics, ...candMetrics])].sort();
  const resamples = options.resamples ?? candidate.resolved.spec.resamples ?? 5000;
  const rows: ArmMetricComparison[] = [];
  for (const metric of metrics) {
    for (const arm of sharedArms) {
      const b = side(baseline, arm, metric);
      const c = side(candidate, arm, metric);
      const missing =
        b.values.length === 0 && c.values.length === 0
          ? 'no ok samples in either bundle'
          : b.values.length === 0
            ? 'no ok samples in the baseline'
            : c.values.length === 0
              ? 'no ok samples in the candidate'
              : null;
      const design = metricDesign(baseline, candidate, arm, metric);
      const seedId = `${baseline.resolved.run_id}:${candidate.resolved.run_id}:${metric}:${arm}`;
      const row: ArmMetricComparison = { arm, metric, unit: unitOf(metric), design, baseline: b, candidate: c, result: null, score: null, noInterval: null, missing };
      if (!missing && !isReplicated(design.unit) && Math.min(b.values.length, c.values.length) < MIN_UNITS_FOR_INTERVAL) {
        row.noInterval = noIntervalText(Math.min(b.values.length, c.values.length));
      } else if (!missing && design.scale === 'score') {
        const matched = matchedScores(baseline, candidate, arm, metric);
        if (typeof matched === 'string') row.missing = matched;
        else row.score = comparePairedScores(matched.candidate, matched.baseline, { resamples, seedId });
      } else if (!missing) {
        row.result = compareMedians(
          { candidate: c.values, control: b.values, paired: false, resamples, seedId },
          { underpoweredFraction: candidate.resolved.spec.underpowered_fraction },
        );
      }
      rows.push(row);
    }
  }
  // Versions matter for the backends both runs exercised; an arm only one bundle has is reported as unmatched, not as an environment difference.
  const candidateBackends = bundleBackends(candidate);
  const backends = [...new Set(bundleBackends(baseline).filter((b) => candidateBackends.includes(b)))];
  return {
    baselineRun: baseline.resolved.run_id,
    candidateRun: candidate.resolved.run_id,
    env: separateIntended(compareFingerprints(fingerprint(baseline, backends), fingerprint(candidate, backends)), baseline, candidate, sharedArms),
    builds: crossRunBuildLines(baseline, candidate, sharedArms),
    armsOnlyInBaseline: baseArms.filter((a) => !candArms.includes(a) && wantedArm(a)),
    armsOnlyInCandidate: candArms.filter((a) => !baseArms.includes(a) && wantedArm(a)),
    metricsOnlyInBaseline: baseMetrics.filter((m) => !candMetrics.includes(m) && metrics.includes(m)),
    metricsOnlyInCandidate: candMetrics.filter((m) => !baseMetrics.includes(m) && metrics.includes(m)),
    specDifference: specDifference(baseline, candidate),
    rows,
  };
}

/** The spec without its arms' builds: two runs of one spec that differ only there differ as intended. */
function withoutBuilds(spec: Bundle['resolved']['spec']): unknown {
  return { ...spec, arms: spec.arms.map(({ build: _build, ...arm }) => arm) };
}

function specDifference(baseline: Bundle, candidate: Bundle): string | null {
  if (JSON.stringify(baseline.resolved.spec) === JSON.stringify(candidate.resolved.spec)) return null;
  if (JSON.stringify(withoutBuilds(baseline.resolved.spec)) === JSON.stringify(withoutBuilds(candidate.resolved.spec))) return 'the specs differ only in arms[].build (the intended difference; what changed is listed per arm)';
  const a = baseline.resolved;
  const b = candidate.resolved;
  if (a.spec_sha256 && a.spec_sha256 === b.spec_sha256) {
    return `the resolved specs differ: same spec file, different command-line overrides (baseline ${JSON.stringify(a.overrides ?? {})} vs candidate ${JSON.stringify(b.overrides ?? {})})`;
  }
  return `the specs differ (baseline ${a.spec_sha256 ?? a.spec.name} vs candidate ${b.spec_sha256 ?? b.spec.name}): task, design or controls changed`;
}
