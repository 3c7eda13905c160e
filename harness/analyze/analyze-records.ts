/**
 * The pure core of `analyze`: resolved spec + journal records + the kind's descriptor → one
 * BundleAnalysis. Same input, same result: no clock, no randomness but the seeded bootstrap, stable
 * orders everywhere. Generic: everything kind-specific comes from the descriptor.
 */
import { armLabel, INFRASTRUCTURE_FAILURES, NOT_APPLICABLE, type FailureCategory, type TrialRecord } from '../journal/trial-record.ts';
import { BundleInputError } from '../bundle/schemas.ts';
import { armOrder, collectArmMetrics, latestPerTrial, metricOrder, type ArmMetricData } from './arm-metric.ts';
import type { ArmSummary, ArmTrials, BundleAnalysis } from './bundle-analysis.ts';
import { runComparison, type ComparisonOutcome } from './comparison-table.ts';
import { comparisonFamily } from './comparison-family.ts';
import { comparisonEvidence, conditionOf, EVIDENCE_SOURCE, summaryEvidence, type EvidenceRow } from './evidence.ts';
import { expectedBlocks, type AnalysisInput, type KindAnalysis } from './kind-analysis.ts';
import { driftFamily, summarizeArmMetric, type TableContext } from './summary-table.ts';
import { TIMING_METRICS } from './units.ts';

export interface ComparisonRequest {
  candidate: string;
  control: string;
  metric: string;
}

/** Declared comparisons, else every other arm against the first on each timing metric present. */
export function comparisonRequests(input: Pick<AnalysisInput, 'resolved'>, arms: readonly string[], metrics: readonly string[]): ComparisonRequest[] {
  const { spec } = input.resolved;
  if (spec.compare && spec.compare.length > 0) return spec.compare.map((c) => ({ candidate: c.candidate, control: c.control, metric: c.metric }));
  const [control, ...others] = arms;
  if (!control) return [];
  const timing = TIMING_METRICS.filter((m) => metrics.includes(m));
  return timing.flatMap((metric) => others.map((candidate) => ({ candidate, control, metric })));
}

function emptyArm(arm: string, metric: string, unit: string, limitation: string): ArmMetricData {
  return { arm, metric, unit, planned: 0, failed: 0, failureCategories: {}, observations: [], okWithoutMetric: 0, limitations: [limitation] };
}

/** The spec's arms as the plan scheduled them (replay: subjects × agents), unless the kind says otherwise. */
function declaredArms(input: AnalysisInput, descriptor: KindAnalysis): string[] {
  if (descriptor.specArms) return descriptor.specArms(input.resolved);
  return input.resolved.plan_arms ?? input.resolved.spec.arms.map((a) => armLabel({ backend: a.backend, variant: a.variant ?? null, label: a.label }));
}

function armTrials(data: readonly ArmMetricData[], arms: readonly string[], metric: string | undefined): ArmTrials[] {
  return arms.map((arm) => {
    const d = data.find((x) => x.arm === arm && x.metric === metric);
    const byCategory = { ...(d?.failureCategories ?? {}) };
    let infrastructure = 0;
    let task = 0;
    for (const [category, count] of Object.entries(byCategory)) {
      if (INFRASTRUCTURE_FAILURES.has(category as FailureCategory)) infrastructure += count;
      else if (category !== NOT_APPLICABLE) task += count;
    }
    const planned = d?.planned ?? 0;
    const failed = d?.failed ?? 0;
    return { arm, planned, ok: planned - failed, failed, byCategory, infrastructure, task };
  });
}

function analysisWarnings(input: AnalysisInput, declared: readonly string[], records: readonly TrialRecord[], summaries: readonly ArmSummary[]): string[] {
  const formal = latestPerTrial(records).filter((r) => !r.warmup);
  const recordedArms = new Set(formal.map((r) => armLabel(r.arm)));
  const skipped = new Set((input.resolved.skipped_arms ?? []).map((s) => s.arm));
  const warnings: string[] = [];
  for (const arm of declared) {
    if (!recordedArms.has(arm) && !skipped.has(arm)) warnings.push(`Arm ${arm} has no formal trial in the journal (the run stopped early, or the arm was never scheduled).`);
  }
  for (const s of input.resolved.skipped_arms ?? []) warnings.push(`Arm ${s.arm} was skipped at preflight: ${s.reason}`);
  const spec = input.resolved.spec;
  if (!(spec.compare && spec.compare.length > 0) && declared.length > 1) {
    warnings.push(`The spec declares no compare: every other arm is compared with the first arm, ${declared[0]} (the default control); add compare: [{candidate, control, metric}] to choose.`);
  }
  if (input.journalWarning) warnings.push(input.journalWarning);
  if (input.records.length === 0) warnings.push('The journal has no trials: nothing was measured.');
  if (input.plan) {
    const planned = input.plan.trials.filter((t) => !t.warmup).length;
    if (formal.length < planned) warnings.push(`Incomplete run: ${formal.length} of ${planned} planned formal trials are in the journal.`);
  }
  warnings.push(...failedTrialWarnings(summaries));
  return [...new Set(warnings)];
}

/**
 * One line per arm and failure count, naming its metrics: a trial that failed is missing from every
 * metric at once, so one line per metric repeated the same fact a dozen times and buried the rest.
 */
function failedTrialWarnings(summaries: readonly ArmSummary[]): string[] {
  const measured = summaries.filter((s) => s.skipped === null);
  const groups = new Map<string, { arm: string; failed: number; planned: number; metrics: string[] }>();
  for (const { data } of measured.filter((s) => s.data.failed > 0)) {
    const key = JSON.stringify([data.arm, data.failed, data.planned]);
    const group = groups.get(key) ?? { arm: data.arm, failed: data.failed, planned: data.planned, metrics: [] };
    group.metrics.push(data.metric);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => {
    const armMetrics = measured.filter((s) => s.data.arm === group.arm).length;
    const which = group.metrics.length === armMetrics && armMetrics > 1 ? `every metric (${armMetrics})` : group.metrics.join(', ');
    return `${group.arm} ${which}: ${group.failed} of ${group.planned} formal trials failed or were invalid.`;
  });
}

export function analyzeRecords(input: AnalysisInput, descriptor: KindAnalysis): BundleAnalysis {
  const { resolved } = input;
  const { spec } = resolved;
  const runId = resolved.run_id;
  const ctx: TableContext = { benchmark_id: spec.name, batch: runId, mode: spec.experiment };
  const skipped = new Map((resolved.skipped_arms ?? []).map((s) => [s.arm, s.reason]));
  const groupOf = descriptor.groupOf;
  const records = groupOf ? input.records.map((r) => ({ ...r, arm: groupOf(r) })) : input.records;
  const specArms = declaredArms(input, descriptor);
  const arms = armOrder(specArms, records);
  const metrics = metricOrder(latestPerTrial(records).filter((r) => !r.warmup));

  const data = collectArmMetrics(records, arms, metrics, expectedBlocks(descriptor, spec), descriptor);
  const measured: ArmSummary[] = data.map((d) => ({ ...summarizeArmMetric(d), skipped: null }));
  // Arms skipped at preflight (backend not installed) stay visible as `unavailable`.
  const skippedSummaries: ArmSummary[] = [...skipped.entries()].flatMap(([arm, reason]) =>
    metrics.map((metric) => ({ ...summarizeArmMetric(emptyArm(arm, metric, data.find((d) => d.metric === metric)?.unit ?? '', `skipped at preflight: ${reason}`)), skipped: reason })),
  );

  const find = (arm: string, metric: string): ArmMetricData | undefined => data.find((d) => d.arm === arm && d.metric === metric);
  const comparisons: ComparisonOutcome[] = comparisonRequests(input, specArms, metrics).map((request, index) => {
    const resolveArm = (role: 'candidate' | 'control'): ArmMetricData => {
      const label = request[role];
      const found = find(label, request.metric);
      if (found) return found;
      if (skipped.has(label)) return emptyArm(label, request.metric, '', `skipped at preflight: ${skipped.get(label)}`);
      if (arms.includes(label)) return emptyArm(label, request.metric, '', `metric ${request.metric} never recorded`);
      throw new BundleInputError(`resolved-spec.json: spec.compare[${index}].${role} "${label}" is not an arm of this run (arms: ${arms.join(', ')}); use an arm label (backend or backend:variant)`);
    };
    return runComparison(resolveArm('candidate'), resolveArm('control'), {
      resamples: spec.resamples,
      seedId: `${runId}:${request.metric}:${request.candidate}`,
      underpoweredFraction: spec.underpowered_fraction,
    });
  });

  const { scenario, topic } = descriptor;
  const evidenceCtx = { spec, runId, scenario, topic };
  const evidence: EvidenceRow[] = [
    ...measured.flatMap((s) => summaryEvidence(evidenceCtx, s)),
    ...[...skipped.entries()].map(([arm, reason]): EvidenceRow => ({
      scenario, topic, source: EVIDENCE_SOURCE, cohort: runId, variant: arm, metric: metrics[0]!, statistic: 'unavailable_failed_preflight',
      n: 0, value: null, unit: '', condition: conditionOf(spec), limitations: reason,
    })),
    ...comparisons.flatMap((o) => comparisonEvidence(evidenceCtx, o)),
  ];

  const extras: BundleAnalysis['extras'] = { files: new Map<string, string>(), tables: [], charts: [] };
  if (descriptor.extension) {
    const extra = descriptor.extension(input);
    const declared = new Set(descriptor.files ?? []);
    for (const [name, content] of [...extra.files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (!declared.has(name)) throw new Error(`analysis of kind ${spec.experiment} wrote ${name}, which its descriptor does not declare in analysis.files`);
      extras.files.set(name, content);
    }
    evidence.push(...extra.evidence);
    extras.tables.push(...(extra.tables ?? []));
    extras.charts.push(...(extra.charts ?? []));
    if (extra.lead) extras.lead = extra.lead;
  }

  const summaries = [...measured, ...skippedSummaries];
  const drifts = driftFamily(summaries);
  return {
    runId,
    kind: spec.experiment,
    resolved,
    context: ctx,
    scenario,
    topic,
    primaryMetrics: descriptor.primaryMetrics.filter((m) => metrics.includes(m)),
    arms,
    metrics,
    records,
    data,
    summaries,
    trials: armTrials(data, arms, metrics[0]),
    comparisons,
    family: comparisonFamily(comparisons, `comparisons of run ${runId}`),
    driftFamily: summaries.map((s) => drifts.get(s) ?? { holmP: null, size: 0 }),
    evidence,
    extras,
    warnings: analysisWarnings(input, specArms, records, summaries),
  };
}
