/**
 * `workspace_boundary` evidence rows as a PURE analysis extension: per arm, how many of the formal
 * trials saw each boundary outcome (statistic `observed_true_count`, n = trials whose probes ran —
 * the published study's 3 fresh repetitions). Metric names join pVisor's published rows
 * (host-outside-mutated, host-lower-mutated, workspace-staged); the rest are this harness's extras.
 */
import type { AnalysisInput, KindAnalysis, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { specArms } from '../../harness/plan/plan.ts';
import { isolationGroupOf, placementsOf } from './isolation-placement.ts';

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

/** The fixture placement of a group's trials, with its path class (a recorded control). */
function placementCondition(trials: readonly TrialRecord[]): string {
  const seen = [...new Set(trials.map((record) => {
    const facts = record.facts.fixture_placement as { placement?: string; path_class?: string } | undefined;
    return facts?.placement ? `${facts.placement} (${facts.path_class ?? 'unknown'})` : 'not recorded';
  }))].sort();
  return `fixtures ${seen.join(' + ')}`;
}

function flag(record: TrialRecord, metric: string): boolean {
  if (metric === 'positives_worked') return record.validity.positives_work === 'pass';
  return (record.metrics[metric] ?? 0) > 0;
}

export function isolationEvidence(input: AnalysisInput): KindExtensionOutput {
  const spec = input.resolved.spec;
  const condition = conditionOf(spec);
  const evidence: EvidenceRow[] = [];
  const formal = input.records.filter((record) => !record.warmup);
  const groupLabel = (record: TrialRecord) => armLabel(isolationGroupOf(record));
  const arms = [...new Set(formal.map(groupLabel))].sort();
  for (const arm of arms) {
    const trials = formal.filter((record) => groupLabel(record) === arm);
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
        condition: `${condition}; ${placementCondition(trials)}`,
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
  // Each (arm, fixture placement) is its own group: pvisor and pvisor:inside-home are never pooled.
  groupOf: isolationGroupOf,
  // Report order: every planned arm once per placement in the spec.
  specArms: (resolved) => specArms(resolved.spec).flatMap((arm) => placementsOf(resolved.spec).map((placement) => armLabel(isolationGroupOf({ arm, facts: { fixture_placement: { placement } } })))),
  extension: isolationEvidence,
};
