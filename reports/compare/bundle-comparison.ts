/**
 * Candidate bundle vs baseline bundle, arm by arm and metric by metric: ratio and difference of
 * medians with bootstrap CIs from harness/stats `compareMedians`. Unpaired (independent
 * resampling): two runs share no blocks, so there is nothing to pair across them.
 */
import { compareMedians, median, type MedianComparison } from '../../harness/stats/index.ts';
import { bundleBackends, compareFingerprints, fingerprint, type FingerprintCheck, type FingerprintDifference } from '../bundle/environment.ts';
import { crossRunBuildLines, separateIntended } from '../bundle/arm-builds.ts';
import { armsWithTrials, metricsWithSamples, samplesOf, trialsOf, unitOf, type AnalyzedBundle, type ArmTrials } from '../../harness/analyze/index.ts';

type Bundle = AnalyzedBundle;

export interface SideStats extends ArmTrials {
  values: number[];
  median: number | null;
}

export interface ArmMetricComparison {
  arm: string;
  metric: string;
  unit: string;
  baseline: SideStats;
  candidate: SideStats;
  /** Null when either side has no ok sample (absence is a state, not a zero). */
  result: MedianComparison | null;
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

function side(bundle: Bundle, arm: string, metric: string): SideStats {
  const values = samplesOf(bundle.analysis, metric, arm).map((s) => s.value);
  return { ...trialsOf(bundle.analysis, arm), values, median: values.length > 0 ? median(values) : null };
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
      const result = missing
        ? null
        : compareMedians(
            { candidate: c.values, control: b.values, paired: false, resamples, seedId: `${baseline.resolved.run_id}:${candidate.resolved.run_id}:${metric}:${arm}` },
            { underpoweredFraction: candidate.resolved.spec.underpowered_fraction },
          );
      rows.push({ arm, metric, unit: unitOf(metric), baseline: b, candidate: c, result, missing });
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
