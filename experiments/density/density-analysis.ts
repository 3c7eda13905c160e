/**
 * density-summary.csv (pVisor's exact header) and `active_capacity` evidence rows, as a PURE
 * function of the journal records and the resolved spec (no files, no processes): analysing the
 * same bundle twice gives the same bytes. Part of the density descriptor (`densityKindAnalysis`).
 */
import type { AnalysisInput, KindAnalysis, KindChart, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import { toCsv, sortedJson, type Cell } from '../../harness/bundle/csv.ts';
import { EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { summarize } from '../../harness/stats/index.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { densitySection } from './density-plan.ts';

export const DENSITY_SUMMARY_FILE = 'density-summary.csv';

export const DENSITY_SUMMARY_HEADER = [
  'backend', 'workload', 'concurrency', 'planned_batches', 'full_valid_no_oom_batches', 'failed_or_unknown_or_oom_batches',
  'oom_batches', 'resource_evidence_unknown_batches', 'failure_reasons', 'attempted_tasks', 'validated_completed_tasks',
  'known_failed_tasks', 'unknown_tasks', 'observed_all_rounds_succeeded', 'memory_budget_mib', 'cpu_affinity', 'swap_bytes',
  'full_batch_wall_distribution', 'barrier_memory_distribution_mib', 'observed_peak_min_mib', 'observed_peak_max_mib',
  'statistics', 'cohort', 'report_sha256', 'binary_sha256',
] as const;

/** How every distribution cell is computed (printed in the `statistics` column). */
export const DENSITY_STATISTICS =
  'full valid no-OOM batches only; percentiles type 7 (linear interpolation); P95 only when n >= 30; separated-cluster rule of the study; failures retained in counts';

export interface DensityCellStats {
  backend: string;
  workload: string;
  concurrency: number;
  records: TrialRecord[];
}

function cellsOf(records: readonly TrialRecord[]): DensityCellStats[] {
  const cells = new Map<string, DensityCellStats>();
  for (const record of records) {
    if (record.warmup || record.experiment !== 'density') continue;
    const workload = String(record.facts.workload ?? 'useful');
    const concurrency = Number(record.facts.concurrency ?? record.metrics.attempted);
    const backend = armLabel(record.arm);
    const key = `${backend}\0${workload}\0${concurrency}`;
    if (!cells.has(key)) cells.set(key, { backend, workload, concurrency, records: [] });
    cells.get(key)!.records.push(record);
  }
  return [...cells.values()].sort((a, b) => (a.backend < b.backend ? -1 : a.backend > b.backend ? 1 : a.workload < b.workload ? -1 : a.workload > b.workload ? 1 : a.concurrency - b.concurrency));
}

const isFull = (r: TrialRecord) => r.outcome === 'ok';
const isOom = (r: TrialRecord) => (r.metrics.oom_count ?? 0) > 0 || (r.metrics.oom_kills ?? 0) > 0 || r.failure_category === 'oom';

/** The distribution cell: a JSON object with the summary fields of summary.csv (absent = null). */
export function distributionJson(values: number[]): string {
  const s = summarize(values);
  const split = s.clusters?.distribution === 'separated-clusters' ? s.clusters : null;
  return JSON.stringify({
    distribution: s.n === 0 ? 'no_samples' : split ? 'separated-clusters' : 'unsplit',
    n: s.n,
    p50: s.p50,
    p95_reference: s.p95,
    minimum: s.min,
    maximum: s.max,
    low_n: split ? split.low.n : null,
    low_p50: split ? split.low.p50 : null,
    high_n: split ? split.high.n : null,
    high_p50: split ? split.high.p50 : null,
  });
}

export interface CellCounts {
  planned: number;
  /** Planned batches the journal does not hold (an interrupted run not yet resumed, or a batch lost). */
  missing: number;
  full: number;
  oom: number;
  unknownEvidence: number;
  attempted: number;
  validated: number;
  knownFailed: number;
  unknownTasks: number;
  reasons: Record<string, number>;
  walls: number[];
  barrierMemory: number[];
  peaks: number[];
}

export function countCell(cell: DensityCellStats, plannedBatches: number): CellCounts {
  const planned = Math.max(plannedBatches, cell.records.length);
  const missing = planned - cell.records.length;
  const full = cell.records.filter(isFull);
  const reasons: Record<string, number> = {};
  for (const record of cell.records) {
    const perBatch = (record.facts.failure_reasons ?? {}) as Record<string, number>;
    for (const [reason, count] of Object.entries(perBatch)) reasons[reason] = (reasons[reason] ?? 0) + count;
    if (record.outcome !== 'ok' && Object.keys(perBatch).length === 0) reasons[record.failure_category ?? 'unknown'] = (reasons[record.failure_category ?? 'unknown'] ?? 0) + 1;
  }
  if (missing > 0) reasons.batch_not_recorded = missing;
  const validated = cell.records.reduce((sum, r) => sum + (r.metrics.validated ?? 0), 0);
  const recordedAttempts = cell.records.length * cell.concurrency;
  return {
    planned,
    missing,
    full: full.length,
    oom: cell.records.filter(isOom).length,
    // A batch without a barrier memory sample (setup failure, harness error) or not recorded at all.
    unknownEvidence: cell.records.filter((r) => r.metrics.barrier_memory_mib === undefined).length + missing,
    attempted: planned * cell.concurrency,
    validated,
    knownFailed: recordedAttempts - validated,
    unknownTasks: missing * cell.concurrency,
    reasons,
    walls: full.map((r) => r.metrics.wall_ms!).filter((v) => v !== undefined),
    barrierMemory: full.map((r) => r.metrics.barrier_memory_mib!).filter((v) => v !== undefined),
    peaks: cell.records.map((r) => r.metrics.peak_memory_mib!).filter((v) => v !== undefined),
  };
}

function densityOf(spec: Spec) {
  return densitySection(spec);
}

const topicOf = (cell: DensityCellStats) => (cell.workload === 'idle' ? 'idle_occupancy' : 'active_capacity');

/** What stays outside the budget by design, from the batches' membership facts (never silent). */
function limitationsOf(cell: DensityCellStats): string {
  const out = ['the harness process is outside the budget (its RSS is measured by npm run bench)'];
  const memberships = cell.records.map((r) => r.facts.membership as { outsideByDesign?: { comm: string }[]; adopted?: { comm: string }[] } | null | undefined);
  const clients = new Set(memberships.flatMap((m) => m?.outsideByDesign?.map((p) => p.comm) ?? []));
  if (clients.size > 0) out.push(`${[...clients].sort().join('/')} CLI clients outside by design`);
  if (cell.records.some((r) => r.facts.container_clients === 'inside')) out.push('container CLI clients inside the budget (density.container_clients: inside; their memory is charged to the batch)');
  const adopted = new Set(memberships.flatMap((m) => m?.adopted?.map((p) => p.comm) ?? []));
  if (adopted.size > 0) out.push(`${[...adopted].sort().join('/')} started outside and moved into the budget at the barrier (its earlier memory charges are not counted)`);
  return out.join('; ');
}

function conditionOf(spec: Spec, cell: DensityCellStats): string {
  const d = densityOf(spec);
  const payload = cell.workload === 'useful' ? `useful Python/Git ${d.payload_mib} MiB` : 'idle Python/Git 0 MiB';
  const vm = cell.records.map((r) => r.facts.vm_controls as { guest_memory_mib: number; tcg_tb_size_mib: number } | null | undefined).find((c) => c);
  const vmControls = vm ? `; VM guest ${vm.guest_memory_mib} MiB, TCG tb-size ${vm.tcg_tb_size_mib} MiB (TCG only)` : '';
  return `${payload}; concurrency ${cell.concurrency}; shared ${d.budget_cpus} CPUs/${d.budget_memory} MiB/zero swap${vmControls}; ${d.batches} fresh batches/cell; no warmups; failures retained`;
}

/** P50 rows, or the two cluster medians when the separated-cluster rule splits the sample (no single P50 then). */
function distributionEvidence(prefix: string, values: number[], row: (metric: string, statistic: string, n: number, value: number) => EvidenceRow): EvidenceRow[] {
  const s = summarize(values);
  if (s.clusters?.distribution === 'separated-clusters') {
    return [row(`${prefix}_low_cluster_median`, 'low_cluster_median', s.clusters.low.n, s.clusters.low.p50), row(`${prefix}_high_cluster_median`, 'high_cluster_median', s.clusters.high.n, s.clusters.high.p50)];
  }
  return s.p50 === null ? [] : [row(`${prefix}_p50`, 'P50', s.n, s.p50)];
}

export function densityAnalysis(input: AnalysisInput): KindExtensionOutput {
  const spec = input.resolved.spec;
  const density = densityOf(spec);
  const cohort = input.resolved.run_id;
  const rows: Cell[][] = [];
  const evidence: EvidenceRow[] = [];
  for (const cell of cellsOf(input.records)) {
    const c = countCell(cell, density.batches);
    rows.push([
      cell.backend, cell.workload, cell.concurrency, c.planned, c.full, c.planned - c.full, c.oom, c.unknownEvidence, sortedJson(c.reasons),
      c.attempted, c.validated, c.knownFailed, c.unknownTasks, c.full === c.planned, density.budget_memory, density.budget_cpus, 0,
      distributionJson(c.walls), distributionJson(c.barrierMemory), c.peaks.length ? Math.min(...c.peaks) : null, c.peaks.length ? Math.max(...c.peaks) : null,
      DENSITY_STATISTICS, cohort, null, null,
    ]);
    const condition = conditionOf(spec, cell);
    const limitations = limitationsOf(cell);
    const row = (metric: string, statistic: string, n: number, value: number, unit: string, extra = ''): EvidenceRow => ({
      // The published topic of the cell's workload: idle workers are the study's idle_occupancy rows.
      scenario: topicOf(cell), topic: topicOf(cell), source: EVIDENCE_SOURCE, cohort, variant: cell.backend, metric, statistic, n, value, unit, condition: extra ? `${condition}; ${extra}` : condition, limitations,
    });
    evidence.push(row('full_valid_no_oom_batches', 'count', c.planned, c.full, 'count'));
    // how many of the planned batches the journal holds: a run still to be resumed has not failed the rest
    evidence.push(row('recorded_batches', 'count', c.planned, c.planned - c.missing, 'count'));
    evidence.push(row('validated_completed_tasks', 'count', c.attempted, c.validated, 'count'));
    evidence.push(...distributionEvidence('barrier_memory_current', c.barrierMemory, (metric, statistic, n, value) => row(metric, statistic, n, value, 'MiB', 'full no-OOM batches only')));
    evidence.push(...distributionEvidence('full_batch_wall', c.walls, (metric, statistic, n, value) => row(metric, statistic, n, value, 'ms', 'launch->all verified')));
  }
  return { files: new Map([[DENSITY_SUMMARY_FILE, toCsv(DENSITY_SUMMARY_HEADER, rows)]]), evidence, tables: [capacityTable(rows)], charts: capacityChart(rows) };
}

/** The density-summary.csv columns a report reader needs; the full table stays in the file. */
export const DENSITY_REPORT_COLUMNS = [
  'backend', 'workload', 'concurrency', 'planned_batches', 'full_valid_no_oom_batches', 'failed_or_unknown_or_oom_batches',
  'oom_batches', 'attempted_tasks', 'validated_completed_tasks', 'known_failed_tasks', 'unknown_tasks', 'failure_reasons',
] as const;

const column = (name: string) => (DENSITY_SUMMARY_HEADER as readonly string[]).indexOf(name);

function capacityTable(rows: readonly Cell[][]): Table {
  const indices = DENSITY_REPORT_COLUMNS.map(column);
  return {
    caption: 'Density capacity (density-summary.csv)',
    header: [...DENSITY_REPORT_COLUMNS],
    rows: rows.map((row) => indices.map((i) => (row[i] === null || row[i] === undefined ? '' : String(row[i])))),
  };
}

/** Validated / attempted tasks by N, one line per backend (and workload): where capacity ends. */
function capacityChart(rows: readonly Cell[][]): KindChart[] {
  const [b, w, n, attempted, validated] = ['backend', 'workload', 'concurrency', 'attempted_tasks', 'validated_completed_tasks'].map(column) as [number, number, number, number, number];
  const points = rows
    .filter((row) => Number(row[attempted]) > 0)
    .map((row) => ({ series: row[w] ? `${row[b]} (${row[w]})` : String(row[b]), x: Number(row[n]), y: Number(row[validated]) / Number(row[attempted]) }));
  if (points.length === 0) return [];
  return [{ id: 'capacity', title: 'Density capacity: validated / attempted tasks by N', x: { title: 'concurrent tasks N', log: true }, y: { title: 'validated / attempted', domain: [0, 1] }, points }];
}

/**
 * Batches at different concurrency are different experiments: summarizing an arm across N would pool
 * unlike cells. Each (backend, workload, N) cell is analysed as its own arm (`podman:useful-n32`).
 */
export function densityCellOf(record: TrialRecord): ArmRef {
  const workload = record.facts.workload;
  const concurrency = record.facts.concurrency;
  if (typeof workload !== 'string' || typeof concurrency !== 'number') return record.arm;
  // The arm's own variant stays in the cell's name: two arms of one backend (podman and podman:runsc)
  // are two cells, never pooled into one.
  const armVariant = record.arm.variant ? `${record.arm.variant}-` : '';
  return { backend: record.arm.backend, variant: `${armVariant}${workload}-n${concurrency}` };
}

/** Evidence rows of density cells carry workload and N in their condition ("useful Python/Git 32 MiB; concurrency 16; ..."). */
export function densityEvidenceCell(row: { condition: string }): string {
  const n = /concurrency (\d+)/.exec(row.condition)?.[1];
  if (n === undefined) return '';
  const workload = /^\s*(useful|idle)\b/.exec(row.condition)?.[1] ?? '';
  return `${workload}:${n}`;
}

export const densityKindAnalysis: KindAnalysis = {
  scenario: 'active_capacity',
  topic: 'active_capacity',
  // Capacity is the answer density gives: the share of attempted tasks validated, per cell.
  primaryMetrics: ['validated_fraction', 'wall_ms'],
  groupOf: densityCellOf,
  // Cells are known from the journal only; the spec's backends are not analysis arms.
  specArms: () => [],
  files: [DENSITY_SUMMARY_FILE],
  extension: densityAnalysis,
  evidenceCell: densityEvidenceCell,
};
