/**
 * The neutral input of every table: one arm × one metric, with the valid observations in schedule
 * order and the denominators (planned, failed) kept beside them. Built from a journal by `analyze`
 * and from any long CSV by `sandbench stats`.
 */
import { armLabel, type TrialRecord } from '../journal/trial-record.ts';
import type { KindAnalysis } from './kind-analysis.ts';
import { isReplicated, PER_TRIAL, type MetricDesign } from './metric-design.ts';
import { TIMING_METRICS, unitOf } from './units.ts';

export interface Observation {
  value: number;
  /** Pairing key (the plan's block); null when the data has no blocks. */
  block: string | null;
  /** Schedule position, for drift. */
  position: number;
  /** Matching key across arms and runs when the kind gives one (KindAnalysis.pairOf); absent = the block. */
  pair?: string;
}

export interface ArmMetricData {
  arm: string;
  metric: string;
  unit: string;
  /** Every planned (non-warmup) trial of the arm. */
  planned: number;
  /** Trials whose outcome was not `ok`; they stay in `planned`, never in the timing sample. */
  failed: number;
  failureCategories: Record<string, number>;
  /** Valid observations (`ok`, not warmup), in schedule order. */
  observations: Observation[];
  /** `ok` trials that did not record this metric (e.g. no ready marker configured). */
  okWithoutMetric: number;
  /** What the reader must know about this arm's numbers (e.g. "TCG, no KVM"). */
  limitations: string[];
  /** The kind's declaration for this metric (metric-design.ts); absent = per trial, continuous. */
  design?: MetricDesign;
  /** One observation per unit of replication, in schedule order (per cell run or per run: the first copy); absent = `observations`. */
  replicates?: Observation[];
}

/** The parts of a kind's descriptor that say what a value stands for and how records match. */
export type RecordDesign = Pick<KindAnalysis, 'metricDesign' | 'cellRunOf' | 'pairOf'>;

/** Later records of the same trial_id supersede earlier ones (a resumed run re-runs interrupted trials). */
export function latestPerTrial(records: readonly TrialRecord[]): TrialRecord[] {
  const byId = new Map<string, TrialRecord>();
  for (const record of records) byId.set(record.trial_id, record);
  return [...byId.values()].sort((a, b) => a.position - b.position || (a.trial_id < b.trial_id ? -1 : a.trial_id > b.trial_id ? 1 : 0));
}

/** Arm labels: the spec's order first, then any other arm seen in the journal, sorted. */
export function armOrder(specArms: readonly string[], records: readonly TrialRecord[]): string[] {
  const seen = new Set(records.map((r) => armLabel(r.arm)));
  const extra = [...seen].filter((a) => !specArms.includes(a)).sort();
  return [...specArms, ...extra];
}

/** Metrics: the timing metrics present, in report order, then every other recorded metric, sorted. */
export function metricOrder(records: readonly TrialRecord[]): string[] {
  const names = new Set<string>();
  for (const record of records) for (const name of Object.keys(record.metrics)) names.add(name);
  const timing = TIMING_METRICS.filter((m) => names.has(m));
  const rest = [...names].filter((m) => !(TIMING_METRICS as readonly string[]).includes(m)).sort();
  const all = [...timing, ...rest];
  // A run where nothing produced a metric still gets rows, so its failures are visible: completion
  // (process exit) is the timing every kind records.
  return all.length > 0 ? all : ['completion_ms'];
}

function armLimitations(records: readonly TrialRecord[], expectedBlocks: number | null): string[] {
  const out: string[] = [];
  if (records.some((r) => r.facts['accelerator'] === 'tcg')) out.push('TCG, no KVM');
  if (expectedBlocks !== null) {
    const recorded = new Set(records.map((r) => r.block)).size;
    if (recorded < expectedBlocks) out.push(`run incomplete: ${recorded} of ${expectedBlocks} planned blocks recorded`);
  }
  return out;
}

/**
 * One ArmMetricData per metric × arm (metric-major, the order of summary.csv). `expectedBlocks` is
 * the number of blocks a finished run records per arm (from the kind's descriptor), or null when the
 * kind's plan has no such shape; a short count then becomes a limitation, never silence.
 */
export function collectArmMetrics(records: readonly TrialRecord[], arms: readonly string[], metrics: readonly string[], expectedBlocks: number | null = null, kind: RecordDesign = {}): ArmMetricData[] {
  const formal = latestPerTrial(records).filter((r) => !r.warmup);
  const out: ArmMetricData[] = [];
  const observation = (r: TrialRecord, metric: string): Observation => ({
    value: r.metrics[metric]!,
    block: String(r.block),
    position: r.position,
    ...(kind.pairOf ? { pair: kind.pairOf(r) } : {}),
  });
  for (const metric of metrics) {
    const design = kind.metricDesign?.(metric) ?? PER_TRIAL;
    for (const arm of arms) {
      const armRecords = formal.filter((r) => armLabel(r.arm) === arm);
      const failedRecords = armRecords.filter((r) => r.outcome !== 'ok');
      const failureCategories: Record<string, number> = {};
      for (const r of failedRecords) {
        const key = r.failure_category ?? r.outcome;
        failureCategories[key] = (failureCategories[key] ?? 0) + 1;
      }
      const ok = armRecords.filter((r) => r.outcome === 'ok');
      const withMetric = ok.filter((r) => typeof r.metrics[metric] === 'number');
      out.push({
        arm,
        metric,
        unit: unitOf(metric),
        planned: armRecords.length,
        failed: failedRecords.length,
        failureCategories,
        observations: withMetric.map((r) => observation(r, metric)),
        okWithoutMetric: ok.length - withMetric.length,
        limitations: armLimitations(armRecords, expectedBlocks),
        design,
        replicates: replicateRecords(withMetric, design, kind).map((r) => observation(r, metric)),
      });
    }
  }
  return out;
}

/**
 * The first record of each unit of replication: every record for trial and attempt metrics; one per
 * cell run (the kind's cellRunOf, else the block) or one per run. Records arrive in schedule order.
 */
function replicateRecords(records: readonly TrialRecord[], design: MetricDesign, kind: RecordDesign): TrialRecord[] {
  if (isReplicated(design.unit)) return [...records];
  const keyOf = design.unit === 'run' ? (r: TrialRecord) => r.run_id : (r: TrialRecord) => kind.cellRunOf?.(r) ?? String(r.block);
  const seen = new Set<string>();
  return records.filter((r) => {
    const key = keyOf(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
