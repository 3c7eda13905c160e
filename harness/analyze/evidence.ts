/**
 * evidence.csv rows: the pVisor scenario-evidence header, so published and reproduced rows join on
 * scenario / variant / metric / statistic. For a cluster median, n is the cluster size.
 */
import type { Spec } from '../spec/schema.ts';
import type { Cell } from '../bundle/csv.ts';
import type { ComparisonOutcome } from './comparison-table.ts';
import type { ArmMetricSummary } from './summary-table.ts';
import { P95_MIN_N } from '../stats/index.ts';

export const EVIDENCE_HEADER = ['scenario', 'topic', 'source', 'cohort', 'variant', 'metric', 'statistic', 'n', 'value', 'unit', 'condition', 'limitations'] as const;

export const EVIDENCE_SOURCE = 'sandbench';

export type EvidenceStatistic =
  | 'P50'
  | 'P95_reference'
  | 'low_cluster_median'
  | 'high_cluster_median'
  | 'count'
  | 'diff_of_medians'
  | 'diff_ci95_low'
  | 'diff_ci95_high'
  // Kind extensions (density, isolation) use the published vocabulary beyond timing statistics.
  | 'constant_per_sample'
  | 'observed_true_count'
  | 'single_observation'
  | 'unavailable_failed_preflight'
  | (string & {});

export interface EvidenceRow {
  scenario: string;
  topic: string;
  source: string;
  cohort: string;
  variant: string;
  metric: string;
  statistic: EvidenceStatistic;
  n: number | null;
  value: number | string | null;
  unit: string;
  condition: string;
  limitations: string;
}

export function evidenceCells(row: EvidenceRow): Cell[] {
  return [row.scenario, row.topic, row.source, row.cohort, row.variant, row.metric, row.statistic, row.n, row.value, row.unit, row.condition, row.limitations];
}

/** The controls in force, in one line: what a reader needs to judge the number. */
export function conditionOf(spec: Spec): string {
  const parts = [
    `cpus ${spec.controls.cpus ?? 'unpinned'}`,
    `memory ${spec.controls.memory === undefined ? 'uncapped' : `${spec.controls.memory} MiB`}`,
    `swap ${spec.controls.swap}`,
    `${spec.warmups} warmups`,
    `${spec.trials} trials`,
    `seed ${spec.seed}`,
    'seeded randomized blocks',
  ];
  return parts.join('; ');
}

function summaryLimitations(s: ArmMetricSummary): string[] {
  const out = [...s.data.limitations];
  if (s.data.failed > 0) out.push(`${s.data.failed} of ${s.data.planned} trials failed (excluded, kept in denominators)`);
  if (s.summary.n > 0 && s.summary.n < P95_MIN_N) out.push(`n < ${P95_MIN_N}: no P95`);
  if (s.summary.clusters?.distribution === 'separated-clusters') out.push('separated clusters: no single P50');
  return out;
}

export interface EvidenceContext {
  spec: Spec;
  runId: string;
  /** The published scenario and topic the rows join with (from the kind's descriptor). */
  scenario: string;
  topic: string;
}

export function summaryEvidence(ctx: EvidenceContext, s: ArmMetricSummary): EvidenceRow[] {
  const { scenario, topic } = ctx;
  const condition = conditionOf(ctx.spec);
  const limitations = summaryLimitations(s).join('; ');
  const row = (statistic: EvidenceStatistic, n: number, value: number): EvidenceRow => ({
    scenario, topic, source: EVIDENCE_SOURCE, cohort: ctx.runId, variant: s.data.arm, metric: s.data.metric, statistic, n, value, unit: s.data.unit, condition, limitations,
  });
  const out: EvidenceRow[] = [];
  const sum = s.summary;
  if (sum.clusters?.distribution === 'separated-clusters') {
    out.push(row('low_cluster_median', sum.clusters.low.n, sum.clusters.low.p50));
    out.push(row('high_cluster_median', sum.clusters.high.n, sum.clusters.high.p50));
  } else if (sum.p50 !== null) {
    out.push(row('P50', sum.n, sum.p50));
  }
  if (sum.p95 !== null) out.push(row('P95_reference', sum.n, sum.p95));
  // Validated count out of the planned trials (a zero here is a real count, not a missing value).
  out.push({ ...row('count', s.data.planned, sum.n), unit: 'count' });
  return out;
}

/** A score's paired comparison: the difference of success rates (0/1) or of means, with its interval. */
function scoreEvidence(ctx: EvidenceContext, o: ComparisonOutcome): EvidenceRow[] {
  const sc = o.score;
  if (!sc) return [];
  const limitations = [...new Set([...o.candidate.limitations, ...o.control.limitations, ...sc.notes])];
  const row = (statistic: EvidenceStatistic, value: number): EvidenceRow => ({
    scenario: ctx.scenario, topic: ctx.topic, source: EVIDENCE_SOURCE, cohort: ctx.runId, variant: `${o.candidate.arm} minus ${o.control.arm}`, metric: o.candidate.metric, statistic, n: sc.pairs, value,
    unit: o.candidate.unit, condition: `${conditionOf(ctx.spec)}; ${sc.method}`, limitations: limitations.join('; '),
  });
  const name = sc.design === 'paired proportions' ? 'diff_of_proportions' : 'diff_of_means';
  return [row(name, sc.difference), ...(sc.ci ? [row('diff_ci95_low', sc.ci.low), row('diff_ci95_high', sc.ci.high)] : [])];
}

export function comparisonEvidence(ctx: EvidenceContext, o: ComparisonOutcome): EvidenceRow[] {
  const r = o.result;
  if (!r) return scoreEvidence(ctx, o);
  const { scenario, topic } = ctx;
  const limitations = [...new Set([...o.candidate.limitations, ...o.control.limitations])];
  if (r.underpowered) limitations.push('underpowered: CI half-width exceeds the set fraction of the difference');
  if (o.droppedBlocks) limitations.push(`${o.droppedBlocks} block(s) dropped for a missing valid value`);
  const condition = `${conditionOf(ctx.spec)}; ${r.method}`;
  const row = (statistic: EvidenceStatistic, value: number): EvidenceRow => ({
    scenario, topic, source: EVIDENCE_SOURCE, cohort: ctx.runId, variant: `${o.candidate.arm} minus ${o.control.arm}`, metric: o.candidate.metric, statistic, n: o.n, value, unit: o.candidate.unit, condition, limitations: limitations.join('; '),
  });
  return [row('diff_of_medians', r.difference), row('diff_ci95_low', r.difference_ci.percentile.low), row('diff_ci95_high', r.difference_ci.percentile.high)];
}
