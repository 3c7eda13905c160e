/**
 * The analysis half of an experiment kind's descriptor (harness/contracts/experiment-kind.ts). The
 * generic analysis asks it — never the kind's name — for the evidence scenario, how records group
 * into arms, which metrics lead the report, how many blocks a finished run has, and what the kind
 * adds (extra files, evidence rows, tables, charts). Everything here must stay PURE: no file
 * system, no processes, no executors (the kind's run half lives beside it, not inside it).
 */
import type { ArmRef, TrialRecord } from '../journal/trial-record.ts';
import type { BundlePlan } from '../bundle/schemas.ts';
import type { ResolvedSpec } from '../spec/resolve-spec.ts';
import type { Spec } from '../spec/schema.ts';
import type { EvidenceRow } from './evidence.ts';
import type { MetricDesign } from './metric-design.ts';
import type { Table } from './table.ts';

export interface AnalysisInput {
  resolved: ResolvedSpec;
  /** Every journal record, warmups and failures included, in journal order (arms as recorded). */
  records: TrialRecord[];
  /** plan.json when the bundle has one: an unfinished run is told apart by it. */
  plan?: BundlePlan | null;
  /** A torn last journal line that was dropped, if any. */
  journalWarning?: string | null;
}

/** A line chart the report draws for a kind (density capacity by N); data only, the report picks the look. */
export interface KindChart {
  id: string;
  title: string;
  x: { title: string; log?: boolean };
  y: { title: string; domain?: [number, number] };
  points: { series: string; x: number; y: number }[];
  /** `line` (default): one line per series; `stacked-bar`: at each x one bar, the series stacked (rollout phases). */
  mark?: 'line' | 'stacked-bar';
}

/**
 * What the report and the terminal lead with, before any chart, when a kind's answer is not a
 * latency (the rollout kind: per cell throughput, reward, memory and bottleneck, then one sentence
 * per candidate against its control). Computed by the kind's analysis; reports only render it.
 */
export interface KindLead {
  table: Table;
  sentences: string[];
}

export interface KindExtensionOutput {
  /** Extra bundle files, name → content (must be among `files`). */
  files: Map<string, string>;
  evidence: EvidenceRow[];
  lead?: KindLead;
  /** Tables the report shows after the generic ones. */
  tables?: Table[];
  charts?: KindChart[];
}

export type KindExtension = (input: AnalysisInput) => KindExtensionOutput;

export interface KindAnalysis {
  /** The published scenario and topic this kind's evidence rows join with. */
  readonly scenario: string;
  readonly topic: string;
  /** The metrics a report and the terminal lead with (shell-ready: ready_ms; repair: completion_ms). */
  readonly primaryMetrics: readonly string[];
  /**
   * The unit of analysis of a record (benchproc's caller-supplied projection): density analyses each
   * (backend, workload, N) cell as its own arm. Default: the record's arm.
   */
  groupOf?(record: TrialRecord): ArmRef;
  /**
   * Arm labels in report order from the resolved spec; [] when the kind's groups are only known from
   * the journal (density cells). Default: the plan's arms, else the spec's.
   */
  specArms?(resolved: ResolvedSpec): string[];
  /** Formal trials of each arm per block when the kind plans `trials` blocks (1 for single-launch kinds); absent = no block-count check. */
  readonly trialsPerBlock?: number;
  /**
   * What one value of `metric` stands for (metric-design.ts): its unit of replication and scale.
   * Default: one value per trial, continuous. The comparisons read it, so a value recorded once per
   * cell run is never treated as a sample of its copies.
   */
  metricDesign?(metric: string): MetricDesign;
  /** For `cell` metrics: the cell run a record belongs to (its records carry one copy of each per-cell value). */
  cellRunOf?(record: TrialRecord): string;
  /**
   * The key matching a record with its counterpart in another arm, or in another run of the same spec
   * and seed (rollout: block and attempt index, which fix the task and path). Default: the block.
   */
  pairOf?(record: TrialRecord): string;
  /** Extra files this kind writes into a bundle (declared, so the layout is complete). */
  readonly files?: readonly string[];
  extension?: KindExtension;
  /** How the condition text of evidence rows tells this kind's cells apart (density: "useful:16"); default none. */
  evidenceCell?(row: { condition: string }): string;
}

/** The descriptor lookup analysis is handed by the composition root (cli/): kind name → descriptor. */
export type KindCatalog = (kind: string) => { readonly analysis: KindAnalysis } | undefined;

/** For a kind this build does not know (an old bundle of a removed kind): named after itself, one arm per record arm. */
export function fallbackAnalysis(kind: string): KindAnalysis {
  return { scenario: kind, topic: kind, primaryMetrics: [] };
}

export function expectedBlocks(analysis: KindAnalysis, spec: Pick<Spec, 'trials'>): number | null {
  return analysis.trialsPerBlock === undefined ? null : spec.trials;
}
