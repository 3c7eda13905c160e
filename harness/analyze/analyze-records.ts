/**
 * The pure core of `analyze`: resolved spec + journal records → file name → CSV text. Same input,
 * same bytes: no clock, no randomness but the seeded bootstrap, stable orders everywhere.
 */
import { armLabel, type TrialRecord } from '../journal/trial-record.ts';
import { BUNDLE_FILES } from '../bundle-layout.ts';
import { armOrder, collectArmMetrics, latestPerTrial, metricOrder, type ArmMetricData } from './arm-metric.ts';
import { COMPARISONS_DETAIL_HEADER, COMPARISONS_HEADER, comparisonDetailRow, comparisonRow, runComparison, type ComparisonOutcome } from './comparison-table.ts';
import { toCsv } from './csv.ts';
import { comparisonEvidence, conditionOf, EVIDENCE_HEADER, EVIDENCE_SOURCE, evidenceCells, scenarioOf, summaryEvidence, type EvidenceRow } from './evidence.ts';
import { analysisExtensionFor, type AnalysisExtension, type AnalysisInput } from './kind-extensions.ts';
import { AnalysisInputError } from './resolved-spec.ts';
import { SAMPLES_HEADER, sampleRows } from './samples-table.ts';
import { DIAGNOSTICS_HEADER, diagnosticsRow, SUMMARY_HEADER, summarizeArmMetric, summaryRow, type TableContext } from './summary-table.ts';
import { TIMING_METRICS } from './units.ts';

export const ANALYSIS_FILES = {
  samples: BUNDLE_FILES.samples,
  summary: BUNDLE_FILES.summary,
  comparisons: BUNDLE_FILES.comparisons,
  evidence: BUNDLE_FILES.evidence,
  diagnostics: 'diagnostics.csv',
  comparisonsDetail: 'comparisons-detail.csv',
} as const;

export interface ComparisonRequest {
  candidate: string;
  control: string;
  metric: string;
}

/** Declared comparisons, else every other arm against the first on each timing metric present. */
export function comparisonRequests(input: AnalysisInput, arms: readonly string[], metrics: readonly string[]): ComparisonRequest[] {
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

export interface AnalyzeOptions {
  /** Defaults to the registered extension for the spec's kind. */
  extension?: AnalysisExtension | null;
}

export function analyzeRecords(input: AnalysisInput, options: AnalyzeOptions = {}): Map<string, string> {
  const { resolved } = input;
  const { spec } = resolved;
  const runId = resolved.run_id;
  const ctx: TableContext = { benchmark_id: spec.name, batch: runId, mode: spec.experiment };
  const skipped = new Map((resolved.skipped_arms ?? []).map((s) => [s.arm, s.reason]));
  const records = spec.experiment === 'density' ? input.records.map(densityCellAsArm) : input.records;
  const specArms =
    spec.experiment === 'density' ? [] : (resolved.plan_arms ?? spec.arms.map((a) => armLabel({ backend: a.backend, variant: a.variant ?? null })));
  const arms = armOrder(specArms, records);
  const metrics = metricOrder(latestPerTrial(records).filter((r) => !r.warmup));

  const data = collectArmMetrics(records, arms, metrics, { kind: spec.experiment, trials: spec.trials });
  const summaries = data.map(summarizeArmMetric);
  // Arms skipped at preflight (backend not installed) stay visible as `unavailable`.
  const skippedSummaries = [...skipped.entries()].flatMap(([arm, reason]) =>
    metrics.map((metric) => summarizeArmMetric(emptyArm(arm, metric, data.find((d) => d.metric === metric)?.unit ?? '', `skipped at preflight: ${reason}`))),
  );

  const find = (arm: string, metric: string): ArmMetricData | undefined => data.find((d) => d.arm === arm && d.metric === metric);
  const outcomes: ComparisonOutcome[] = comparisonRequests(input, specArms, metrics).map((request, index) => {
    const resolveArm = (role: 'candidate' | 'control'): ArmMetricData => {
      const label = request[role];
      const found = find(label, request.metric);
      if (found) return found;
      if (skipped.has(label)) return emptyArm(label, request.metric, '', `skipped at preflight: ${skipped.get(label)}`);
      if (arms.includes(label)) return emptyArm(label, request.metric, '', `metric ${request.metric} never recorded`);
      throw new AnalysisInputError(`resolved-spec.json: spec.compare[${index}].${role} "${label}" is not an arm of this run (arms: ${arms.join(', ')}); use an arm label (backend or backend:variant)`);
    };
    return runComparison(resolveArm('candidate'), resolveArm('control'), {
      resamples: spec.resamples,
      seedId: `${runId}:${request.metric}:${request.candidate}`,
      underpoweredFraction: spec.underpowered_fraction,
    });
  });

  const evidenceCtx = { spec, runId };
  const { scenario, topic } = scenarioOf(spec.experiment);
  const evidence: EvidenceRow[] = [
    ...summaries.flatMap((s) => summaryEvidence(evidenceCtx, s)),
    ...[...skipped.entries()].map(([arm, reason]): EvidenceRow => ({
      scenario, topic, source: EVIDENCE_SOURCE, cohort: runId, variant: arm, metric: metrics[0]!, statistic: 'unavailable_failed_preflight',
      n: 0, value: null, unit: '', condition: conditionOf(spec), limitations: reason,
    })),
    ...outcomes.flatMap((o) => comparisonEvidence(evidenceCtx, o)),
  ];

  const files = new Map<string, string>();
  files.set(ANALYSIS_FILES.samples, toCsv(SAMPLES_HEADER, sampleRows(records)));
  files.set(ANALYSIS_FILES.summary, toCsv(SUMMARY_HEADER, [...summaries, ...skippedSummaries].map((s) => summaryRow(ctx, s))));
  files.set(ANALYSIS_FILES.diagnostics, toCsv(DIAGNOSTICS_HEADER, [...summaries, ...skippedSummaries].map((s) => diagnosticsRow(ctx, s))));
  files.set(ANALYSIS_FILES.comparisons, toCsv(COMPARISONS_HEADER, outcomes.map((o) => comparisonRow(ctx, o))));
  files.set(ANALYSIS_FILES.comparisonsDetail, toCsv(COMPARISONS_DETAIL_HEADER, outcomes.map((o) => comparisonDetailRow(ctx, o, spec.underpowered_fraction))));

  const extension = options.extension === undefined ? analysisExtensionFor(spec.experiment) : options.extension;
  if (extension) {
    const extra = extension(input);
    for (const [name, content] of [...extra.files.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      if (files.has(name)) throw new Error(`analysis extension for ${spec.experiment} tried to overwrite ${name}`);
      files.set(name, content);
    }
    evidence.push(...extra.evidence);
  }
  files.set(ANALYSIS_FILES.evidence, toCsv(EVIDENCE_HEADER, evidence.map(evidenceCells)));
  return files;
}

/**
 * Density batches at different concurrency are different experiments: summarizing an arm across
 * N would pool unlike cells. Each (backend, workload, N) cell is analysed as its own arm instead.
 */
function densityCellAsArm(record: TrialRecord): TrialRecord {
  const workload = record.facts.workload;
  const concurrency = record.facts.concurrency;
  if (typeof workload !== 'string' || typeof concurrency !== 'number') return record;
  return { ...record, arm: { backend: record.arm.backend, variant: `${workload}-n${concurrency}` } };
}
