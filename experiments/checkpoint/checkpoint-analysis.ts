/**
 * The checkpoint kind's PURE analysis (records → checkpoint-summary.csv, `fork_checkpoint` evidence
 * rows and a report table). One cell per (mechanism, K). Timings come from formal `ok` trials only;
 * invalid and failed trials stay in the counts. Per-child restore time is summarised over trials
 * (each trial's median child), because the children of one trial share one checkpoint and are not
 * independent samples. CIs are distribution-free order-statistic CIs of the median (null below n=6).
 *
 * checkpoint-summary.csv columns:
 *   mechanism, variant, children (K), preserves (files | files+process, as claimed), parent_paused,
 *   status (measured | unavailable | no_ok_trials), reason (unavailable or failure notes),
 *   planned, ok, invalid, failed, failure_categories (JSON counts),
 *   checkpoint_ms_{n,p50,ci_low,ci_high}, restore_ms_{n,p50,ci_low,ci_high} (median child per trial),
 *   restore_child_max_ms_p50, fanout_ms_p50, checkpoint_disk_bytes_p50, checkpoint_memory_bytes_p50,
 *   child_pss_kib_p50, child_private_kib_p50, child_shared_kib_p50,
 *   children_judged, files_ok, process_ok, isolated_ok (children of ok+invalid trials),
 *   statistics (the method, one text)
 */
import { EVIDENCE_SOURCE, conditionOf, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import type { AnalysisInput, KindAnalysis, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { sortedJson, toCsv, type Cell } from '../../harness/bundle/csv.ts';
import type { ArmRef, TrialRecord } from '../../harness/journal/trial-record.ts';
import { median, medianOrderStatisticCi } from '../../harness/stats/index.ts';

export const CHECKPOINT_SUMMARY_FILE = 'checkpoint-summary.csv';

export const CHECKPOINT_SUMMARY_HEADER = [
  'mechanism', 'variant', 'children', 'preserves', 'parent_paused', 'status', 'reason',
  'planned', 'ok', 'invalid', 'failed', 'failure_categories',
  'checkpoint_ms_n', 'checkpoint_ms_p50', 'checkpoint_ms_ci_low', 'checkpoint_ms_ci_high',
  'restore_ms_n', 'restore_ms_p50', 'restore_ms_ci_low', 'restore_ms_ci_high',
  'restore_child_max_ms_p50', 'fanout_ms_p50', 'checkpoint_disk_bytes_p50', 'checkpoint_memory_bytes_p50',
  'child_pss_kib_p50', 'child_private_kib_p50', 'child_shared_kib_p50',
  'children_judged', 'files_ok', 'process_ok', 'isolated_ok', 'statistics',
] as const;

export const CHECKPOINT_STATISTICS =
  'formal ok trials only; p50 = median (type 7); CI = order-statistic 95% CI of the median, blank below n=6; restore = median child per trial (children of one trial are not independent); correctness counts over children of ok and invalid trials';

export interface CheckpointCell {
  backend: string;
  variant: string | null;
  children: number;
  records: TrialRecord[];
}

const childrenOf = (record: TrialRecord): number | null => (typeof record.facts.children === 'number' ? record.facts.children : null);

/** Unit of analysis: the arm qualified by K (`podman:k4`), so summary.csv never pools K. */
export function checkpointCellOf(record: TrialRecord): ArmRef {
  const k = childrenOf(record);
  if (k === null) return record.arm;
  return { backend: record.arm.backend, variant: record.arm.variant ? `${record.arm.variant}-k${k}` : `k${k}` };
}

export function checkpointCells(records: readonly TrialRecord[]): CheckpointCell[] {
  const cells = new Map<string, CheckpointCell>();
  for (const record of records) {
    if (record.warmup) continue;
    const k = childrenOf(record);
    if (k === null) continue;
    const key = `${record.arm.backend}\0${record.arm.variant ?? ''}\0${String(k).padStart(4, '0')}`;
    if (!cells.has(key)) cells.set(key, { backend: record.arm.backend, variant: record.arm.variant, children: k, records: [] });
    cells.get(key)!.records.push(record);
  }
  return [...cells.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, cell]) => cell);
}

interface Estimate {
  n: number;
  p50: number | null;
  low: number | null;
  high: number | null;
}

function estimate(values: number[]): Estimate {
  if (values.length === 0) return { n: 0, p50: null, low: null, high: null };
  const ci = medianOrderStatisticCi(values);
  return { n: values.length, p50: median(values), low: ci?.low ?? null, high: ci?.high ?? null };
}

const metricValues = (records: TrialRecord[], name: string) => records.map((r) => r.metrics[name]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
const p50 = (values: number[]) => (values.length > 0 ? median(values) : null);

export interface CellSummary {
  cell: CheckpointCell;
  preserves: string;
  parentPaused: string;
  status: 'measured' | 'unavailable' | 'no_ok_trials';
  reason: string;
  counts: { planned: number; ok: number; invalid: number; failed: number; categories: Record<string, number> };
  checkpoint: Estimate;
  restore: Estimate;
  restoreMax: number | null;
  fanout: number | null;
  diskBytes: number | null;
  memoryBytes: number | null;
  pss: number | null;
  privateKiB: number | null;
  sharedKiB: number | null;
  judged: number;
  filesOk: number;
  processOk: number;
  isolatedOk: number;
}

export function summarizeCell(cell: CheckpointCell): CellSummary {
  const ok = cell.records.filter((r) => r.outcome === 'ok');
  const judged = cell.records.filter((r) => r.outcome !== 'failed');
  const categories: Record<string, number> = {};
  for (const r of cell.records) if (r.failure_category) categories[r.failure_category] = (categories[r.failure_category] ?? 0) + 1;
  const unavailable = cell.records.map((r) => r.facts.unavailable).find((v): v is string => typeof v === 'string');
  const preserves = cell.records.map((r) => r.facts.preserves).find((v): v is string => typeof v === 'string') ?? '';
  const paused = cell.records.map((r) => r.facts.parent_paused).find((v): v is boolean => typeof v === 'boolean');
  const failureNotes = [...new Set(cell.records.filter((r) => r.outcome !== 'ok').map((r) => r.notes[0] ?? '').filter(Boolean))].slice(0, 3);
  const status = unavailable !== undefined && ok.length === 0 ? 'unavailable' : ok.length === 0 ? 'no_ok_trials' : 'measured';
  const sum = (name: string) => judged.reduce((total, r) => total + (r.metrics[name] ?? 0), 0);
  return {
    cell,
    preserves,
    parentPaused: paused === undefined ? '' : paused ? 'paused' : 'running',
    status,
    reason: status === 'unavailable' ? unavailable! : failureNotes.join(' | '),
    counts: { planned: cell.records.length, ok: ok.length, invalid: cell.records.filter((r) => r.outcome === 'invalid').length, failed: cell.records.filter((r) => r.outcome === 'failed').length, categories },
    checkpoint: estimate(metricValues(ok, 'checkpoint_ms')),
    restore: estimate(metricValues(ok, 'restore_median_ms')),
    restoreMax: p50(metricValues(ok, 'restore_max_ms')),
    fanout: p50(metricValues(ok, 'fanout_ms')),
    diskBytes: p50(metricValues(ok, 'checkpoint_disk_bytes')),
    memoryBytes: p50(metricValues(ok, 'checkpoint_memory_bytes')),
    pss: p50(metricValues(ok, 'child_pss_kib')),
    privateKiB: p50(metricValues(ok, 'child_private_kib')),
    sharedKiB: p50(metricValues(ok, 'child_shared_kib')),
    judged: sum('children_ready_count'),
    filesOk: sum('files_ok_count'),
    processOk: sum('process_ok_count'),
    isolatedOk: sum('isolated_ok_count'),
  };
}

function summaryRow(s: CellSummary): Cell[] {
  return [
    s.cell.backend, s.cell.variant ?? '', s.cell.children, s.preserves, s.parentPaused, s.status, s.reason,
    s.counts.planned, s.counts.ok, s.counts.invalid, s.counts.failed, sortedJson(s.counts.categories),
    s.checkpoint.n, s.checkpoint.p50, s.checkpoint.low, s.checkpoint.high,
    s.restore.n, s.restore.p50, s.restore.low, s.restore.high,
    s.restoreMax, s.fanout, s.diskBytes, s.memoryBytes, s.pss, s.privateKiB, s.sharedKiB,
    s.judged, s.filesOk, s.processOk, s.isolatedOk, CHECKPOINT_STATISTICS,
  ];
}

const label = (s: CellSummary) => `${s.cell.backend}${s.cell.variant ? `:${s.cell.variant}` : ''}:k${s.cell.children}`;

function evidenceRows(summaries: CellSummary[], input: AnalysisInput): EvidenceRow[] {
  const condition = conditionOf(input.resolved.spec);
  const base = { scenario: 'fork_checkpoint', topic: 'fork_checkpoint', source: EVIDENCE_SOURCE, cohort: input.resolved.run_id };
  const rows: EvidenceRow[] = [];
  for (const s of summaries) {
    const variant = label(s);
    const cond = `${condition}; K=${s.cell.children}; parent ${s.parentPaused || 'unknown'} during checkpoint`;
    if (s.status === 'unavailable') {
      rows.push({ ...base, variant, metric: 'checkpoint_ms', statistic: 'unavailable_failed_preflight', n: 0, value: null, unit: 'ms', condition: cond, limitations: s.reason });
      continue;
    }
    const limits = `${s.counts.ok} ok of ${s.counts.planned} planned (${s.counts.invalid} invalid, ${s.counts.failed} failed); ${CHECKPOINT_STATISTICS}`;
    rows.push({ ...base, variant, metric: 'checkpoint_ms', statistic: 'P50', n: s.checkpoint.n, value: s.checkpoint.p50, unit: 'ms', condition: cond, limitations: limits });
    rows.push({ ...base, variant, metric: 'restore_ms', statistic: 'P50', n: s.restore.n, value: s.restore.p50, unit: 'ms', condition: cond, limitations: limits });
    const bytes = s.diskBytes !== null && s.memoryBytes !== null ? s.diskBytes + s.memoryBytes : null;
    rows.push({ ...base, variant, metric: 'bytes', statistic: 'P50', n: s.checkpoint.n, value: bytes, unit: 'bytes', condition: cond, limitations: `disk ${s.diskBytes ?? 'n/a'} + memory image ${s.memoryBytes ?? 'n/a'}; ${limits}` });
    // Preserved = what the mechanism claims AND held in every judged child (else the claim failed).
    const held = s.preserves === 'files+process' ? s.processOk === s.judged && s.filesOk === s.judged && s.judged > 0 : s.filesOk === s.judged && s.judged > 0;
    rows.push({ ...base, variant, metric: 'preserved', statistic: held ? 'claimed_and_held' : 'claimed_not_held', n: s.judged, value: s.preserves, unit: '', condition: cond, limitations: `files ok ${s.filesOk}/${s.judged}, process ok ${s.processOk}/${s.judged}, isolated ${s.isolatedOk}/${s.judged} children` });
  }
  return rows;
}

const fmt = (value: number | null, digits = 0) => (value === null ? '–' : value.toFixed(digits));
const ci = (e: Estimate) => (e.p50 === null ? '–' : `${fmt(e.p50)} [${fmt(e.low)}, ${fmt(e.high)}] n=${e.n}`);

function reportTable(summaries: CellSummary[]): Table {
  return {
    caption: 'Fork/checkpoint cost per mechanism × K (children per checkpoint)',
    header: ['mechanism', 'K', 'preserves', 'checkpoint ms [CI]', 'restore ms per child [CI]', 'bytes (disk+mem)', 'child PSS KiB', 'files/process/isolated ok', 'trials ok/planned', 'note'],
    rows: summaries.map((s) => [
      `${s.cell.backend}${s.cell.variant ? `:${s.cell.variant}` : ''}`,
      String(s.cell.children),
      s.preserves || '–',
      ci(s.checkpoint),
      ci(s.restore),
      s.diskBytes === null || s.memoryBytes === null ? '–' : `${(s.diskBytes / 1048576).toFixed(1)}+${(s.memoryBytes / 1048576).toFixed(1)} MiB`,
      fmt(s.pss),
      `${s.filesOk}/${s.processOk}/${s.isolatedOk} of ${s.judged}`,
      `${s.counts.ok}/${s.counts.planned}`,
      s.status === 'measured' ? (s.parentPaused ? `parent ${s.parentPaused}` : '') : `${s.status}: ${s.reason.slice(0, 160)}`,
    ]),
    rightAligned: [1, 6],
    footnote: CHECKPOINT_STATISTICS,
  };
}

export function checkpointAnalysis(input: AnalysisInput): KindExtensionOutput {
  const summaries = checkpointCells(input.records).map(summarizeCell);
  const csv = toCsv(CHECKPOINT_SUMMARY_HEADER, summaries.map(summaryRow));
  return { files: new Map([[CHECKPOINT_SUMMARY_FILE, csv]]), evidence: evidenceRows(summaries, input), tables: [reportTable(summaries)] };
}

export const checkpointKindAnalysis: KindAnalysis = {
  scenario: 'fork_checkpoint',
  topic: 'fork_checkpoint',
  primaryMetrics: ['checkpoint_ms', 'restore_median_ms'],
  groupOf: checkpointCellOf,
  // Cells (mechanism × K) are known from the journal; the spec's backends are not analysis arms.
  specArms: () => [],
  files: [CHECKPOINT_SUMMARY_FILE],
  extension: checkpointAnalysis,
};
