/**
 * `workspace_boundary` evidence rows as a PURE analysis extension: per arm, how many of the formal
 * trials saw each boundary outcome (statistic `observed_true_count`, n = trials whose probes ran —
 * the published study's 3 fresh repetitions). Metric names join pVisor's published rows
 * (host-outside-mutated, host-lower-mutated, workspace-staged); the rest are this harness's extras.
 */
import type { AnalysisInput, KindAnalysis, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';

/** Evidence metric → per-trial metric (0/1 or a count; a count > 0 is "true"). */
export const BOUNDARY_METRICS: [string, string][] = [
  ['host-outside-mutated', 'host_outside_mutated'],
  ['host-lower-mutated', 'host_lower_mutated'],
  ['workspace-staged', 'workspace_staged'],
  ['host-outside-read', 'outside_reads'],
  ['host-socket-connected', 'host_socket_connects'],
  ['positives-worked', 'positives_worked'],
];

const LIMITS = 'Linux path/socket fixtures; fresh fixtures per trial; judged by final host bytes, host listener and host-only secrets; not a comprehensive escape audit';

function flag(record: TrialRecord, metric: string): boolean {
  if (metric === 'positives_worked') return record.validity.positives_work === 'pass';
  return (record.metrics[metric] ?? 0) > 0;
}

export function isolationEvidence(input: AnalysisInput): KindExtensionOutput {
  const spec = input.resolved.spec;
  const condition = conditionOf(spec);
  const evidence: EvidenceRow[] = [];
  const formal = input.records.filter((record) => !record.warmup);
  const arms = [...new Set(formal.map((record) => armLabel(record.arm)))].sort();
  for (const arm of arms) {
    const trials = formal.filter((record) => armLabel(record.arm) === arm);
    // Probes ran = the judge wrote its counts; failed launches stay visible in the limitations.
    const ran = trials.filter((record) => record.metrics.probes_reported !== undefined && record.validity.probes_ran === 'pass');
    const notRan = trials.length - ran.length;
    const limitations = notRan > 0 ? `${LIMITS}; ${notRan} of ${trials.length} trials did not run the probes (excluded from n)` : LIMITS;
    for (const [metric, field] of BOUNDARY_METRICS) {
      evidence.push({
        scenario: 'workspace_boundary',
        topic: 'workspace_boundary',
        source: EVIDENCE_SOURCE,
        cohort: input.resolved.run_id,
        variant: arm,
        metric,
        statistic: 'observed_true_count',
        n: ran.length,
        value: ran.filter((record) => flag(record, field)).length,
        unit: 'count',
        condition,
        limitations,
      });
    }
  }
  return { files: new Map(), evidence };
}

export const isolationKindAnalysis: KindAnalysis = {
  scenario: 'workspace_boundary',
  topic: 'workspace_boundary',
  // The answer is whether the host changed; the timings are secondary.
  primaryMetrics: ['host_outside_mutated', 'host_lower_mutated'],
  extension: isolationEvidence,
};
