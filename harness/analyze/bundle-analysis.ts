/**
 * The results model: one in-memory BundleAnalysis per bundle (hyperfine's one flat result type that
 * every exporter serializes). The CSVs, report.html/report.md, the terminal summary, compare, gate
 * and reproduce are renderings of it; none of them computes a statistic of its own.
 */
import { NOT_APPLICABLE, type TrialRecord } from '../journal/trial-record.ts';
import type { ResolvedSpec } from '../spec/resolve-spec.ts';
import type { ArmMetricData } from './arm-metric.ts';
import type { ComparisonFamily } from './comparison-family.ts';
import type { ComparisonOutcome } from './comparison-table.ts';
import type { EvidenceRow } from './evidence.ts';
import type { KindChart, KindLead } from './kind-analysis.ts';
import type { ArmMetricSummary, TableContext } from './summary-table.ts';
import type { Table } from './table.ts';

/** An arm × metric's place in the drift family: its Holm-adjusted drift p (null when not tested) and the family's size. */
export interface DriftMember {
  holmP: number | null;
  size: number;
}

/** Version of this model's JSON rendering (`--json`); bump when a field changes meaning. */
export const ANALYSIS_SCHEMA_VERSION = 1;

export interface ArmSummary extends ArmMetricSummary {
  /** Set for an arm skipped at preflight (backend not installed): the reason; its counts are zero. */
  skipped: string | null;
}

/** Formal trials of one arm by outcome: every planned trial stays in the denominator. */
export interface ArmTrials {
  arm: string;
  planned: number;
  ok: number;
  failed: number;
  /** Non-ok formal trials by failure category (the outcome when a trial has no category). */
  byCategory: Record<string, number>;
  /** Failures of the machinery (setup, recording, upstream, harness, timeout...) vs of the task; `not_applicable` is neither. */
  infrastructure: number;
  task: number;
}

export interface KindExtras {
  files: Map<string, string>;
  tables: Table[];
  charts: KindChart[];
  /** The kind's lead (kind-analysis.ts KindLead): shown first, before the latency charts. */
  lead?: KindLead;
}

export interface BundleAnalysis {
  runId: string;
  kind: string;
  resolved: ResolvedSpec;
  /** benchmark_id / batch / mode of every CSV row. */
  context: TableContext;
  scenario: string;
  topic: string;
  /** Declared by the kind; only those present in this run, in the kind's order. */
  primaryMetrics: string[];
  /** Analysis arms (density: cells) in report order; skipped arms are not among them. */
  arms: string[];
  metrics: string[];
  /** Journal records with `arm` replaced by the kind's group (density cells), in journal order. */
  records: TrialRecord[];
  /** Per arm × metric: the valid observations and denominators (what plots, compare and gate read). */
  data: ArmMetricData[];
  /** Measured arms (metric-major), then the arms skipped at preflight. */
  summaries: ArmSummary[];
  trials: ArmTrials[];
  comparisons: ComparisonOutcome[];
  /** The comparisons' multiplicity family (Holm over their rank tests); members index-aligned with `comparisons`. */
  family: ComparisonFamily;
  /** The drift tests' family (Holm over every arm × metric with n ≥ 10), index-aligned with `summaries`. */
  driftFamily: DriftMember[];
  evidence: EvidenceRow[];
  extras: KindExtras;
  /** What a reader must be told before any number (torn journal, incomplete run, failed trials). */
  warnings: string[];
}

/** The summary of one arm and metric, if the analysis has it. */
export function summaryOf(analysis: BundleAnalysis, arm: string, metric: string): ArmSummary | undefined {
  return analysis.summaries.find((s) => s.data.arm === arm && s.data.metric === metric);
}

export function dataOf(analysis: BundleAnalysis, arm: string, metric: string): ArmMetricData | undefined {
  return analysis.data.find((d) => d.arm === arm && d.metric === metric);
}

/** One valid observation of an arm, for plots and cross-run comparisons. */
export interface ArmSample {
  arm: string;
  block: number;
  position: number;
  value: number;
}

/** The valid observations of one metric (of one arm, or of every arm), in schedule order. */
export function samplesOf(analysis: BundleAnalysis, metric: string, arm?: string): ArmSample[] {
  return analysis.data
    .filter((d) => d.metric === metric && (arm === undefined || d.arm === arm))
    .flatMap((d) => d.observations.map((o) => ({ arm: d.arm, block: Number(o.block), position: o.position, value: o.value })))
    .sort((a, b) => a.position - b.position);
}

/** An arm's formal trials by outcome; zero counts for an arm the analysis does not have. */
export function trialsOf(analysis: BundleAnalysis, arm: string): ArmTrials {
  return analysis.trials.find((t) => t.arm === arm) ?? { arm, planned: 0, ok: 0, failed: 0, byCategory: {}, infrastructure: 0, task: 0 };
}

/** Arms with at least one formal trial, in report order. */
export function armsWithTrials(analysis: BundleAnalysis): string[] {
  return analysis.trials.filter((t) => t.planned > 0).map((t) => t.arm);
}

/** Metrics some arm has a valid observation of, in the analysis's order. */
export function metricsWithSamples(analysis: BundleAnalysis): string[] {
  return analysis.metrics.filter((m) => analysis.data.some((d) => d.metric === m && d.observations.length > 0));
}

/** An arm that was planned but ended with no valid formal trial, with the failure category that dominated. */
export interface EmptyArm {
  arm: string;
  planned: number;
  dominant: string;
}

const notApplicableOnly = (t: ArmTrials): boolean => t.failed > 0 && (t.byCategory[NOT_APPLICABLE] ?? 0) === t.failed && t.ok === 0;

/**
 * Arms with formal trials of which none is valid: the run measured nothing for them (`run` exits 4).
 * An arm whose every trial is `not_applicable` is left out: the spec asked for a cell its backend
 * cannot run, which the bundle records with the reason; that is not a failed measurement.
 */
export function armsWithoutValidTrials(analysis: BundleAnalysis): EmptyArm[] {
  return analysis.trials
    .filter((t) => t.planned > 0 && t.ok === 0 && !notApplicableOnly(t))
    .map((t) => {
      const [dominant] = Object.entries(t.byCategory).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))[0] ?? ['unknown'];
      return { arm: t.arm, planned: t.planned, dominant };
    });
}

/** Arms whose every formal trial is `not_applicable`: what `run` names instead of an empty arm. */
export function armsNotApplicable(analysis: BundleAnalysis): { arm: string; planned: number }[] {
  return analysis.trials.filter(notApplicableOnly).map((t) => ({ arm: t.arm, planned: t.planned }));
}
