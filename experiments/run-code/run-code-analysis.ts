/**
 * The run-code kind's analysis (pure): one group per backend × client concurrency; the table a verl
 * user reads: requests/s (the mean of the cell runs, t interval over blocks), the client round trip's
 * P50/P95/P99 with distribution-free order-statistic intervals, and every request's verl verdict by
 * category — failures in the denominator, infrastructure apart from program verdicts.
 */
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import type { KindAnalysis, KindExtensionOutput, AnalysisInput } from '../../harness/analyze/kind-analysis.ts';
import type { MetricDesign } from '../../harness/analyze/metric-design.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { quantile, studentTQuantile, wilsonInterval } from '../../harness/stats/index.ts';
import { quantileOrderStatisticCi } from '../../harness/stats/quantile-ci.ts';
import { VERL_VERDICTS } from './request-stream.ts';

export const RUN_CODE_SUMMARY_FILE = 'run-code-summary.csv';
export const RUN_CODE_JOURNAL_FILE = 'run-code-journal.jsonl';

const QUANTILES = [
  { name: 'p50', p: 0.5, minN: 1 },
  { name: 'p95', p: 0.95, minN: 30 },
  { name: 'p99', p: 0.99, minN: 100 },
] as const;

const HEADER = [
  'backend', 'variant', 'concurrency', 'requests', 'ok', 'infrastructure_failures', 'verdict_mismatches', 'cell_runs', 'requests_per_s_mean', 'requests_per_s_ci95_low', 'requests_per_s_ci95_high', 'ok_per_s_mean', 'ok_per_s_ci95_low', 'ok_per_s_ci95_high',
  ...QUANTILES.flatMap((q) => [`round_trip_${q.name}_ms`, `round_trip_${q.name}_ci95_low_ms`, `round_trip_${q.name}_ci95_high_ms`]),
  'sandbox_start_p50_ms', 'run_p50_ms', 'teardown_p50_ms', 'queue_wait_p50_ms', 'peak_rss_p50_kib', 'load_avg_1m_mean',
  ...VERL_VERDICTS.map((verdict) => `verdict_${verdict}`),
  'error_rate', 'error_rate_ci95_low', 'error_rate_ci95_high', 'compile_p50_ms', 'client_cpu_cores_mean', 'client_cpu_cores_max', 'server_process_cpu_cores_mean',
] as const;

export function runCodeMetricDesign(name: string): MetricDesign {
  return name.startsWith('cell_') ? { unit: 'cell', scale: 'continuous' } : { unit: 'trial', scale: 'continuous' };
}

function groupOf(record: TrialRecord): ArmRef {
  return { backend: record.arm.backend, variant: `${record.arm.variant ? `${record.arm.variant}-` : ''}c${String(record.facts.concurrency ?? '?')}` };
}

function metricValues(records: readonly TrialRecord[], metric: string): number[] {
  return records.flatMap((record) => (typeof record.metrics[metric] === 'number' ? [record.metrics[metric]!] : []));
}

const medianOf = (values: number[]): number | null => (values.length > 0 ? quantile(values, 0.5) : null);

/** Mean of a once-per-cell-run figure over the cell runs (one value per run, never per request), with a t interval over the cell runs (null below two). */
export function perCellMean(records: readonly TrialRecord[], metric: string): { n: number; mean: number | null; low: number | null; high: number | null } {
  const byRun = new Map<string, number>();
  for (const record of records) if (typeof record.metrics[metric] === 'number') byRun.set(String(record.facts.cell_run), record.metrics[metric]!);
  const values = [...byRun.values()];
  const n = values.length;
  if (n === 0) return { n, mean: null, low: null, high: null };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, low: null, high: null };
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const half = studentTQuantile(0.975, n - 1) * (sd / Math.sqrt(n));
  // A rate cannot be negative: the t interval is cut at 0, which keeps its coverage. With 2 cell runs
  // (t = 12.7) it is wide by design; more trials narrow it.
  return { n, mean, low: Math.max(0, mean - half), high: mean + half };
}

function groupRow(group: ArmRef, records: readonly TrialRecord[]): Cell[] {
  const ok = records.filter((record) => record.outcome === 'ok');
  const roundTrips = metricValues(ok, 'round_trip_ms');
  const throughput = perCellMean(records, 'cell_requests_per_s');
  const useful = perCellMean(records, 'cell_ok_per_s');
  const quantileCells = QUANTILES.flatMap((q): Cell[] => {
    if (roundTrips.length < q.minN) return [null, null, null];
    const interval = quantileOrderStatisticCi(roundTrips, q.p);
    return [quantile(roundTrips, q.p), interval?.low ?? null, interval?.high ?? null];
  });
  const loads = records.map((record) => Number(record.facts.load_avg_1m_cell_start)).filter(Number.isFinite);
  const clientCpu = perCellExtremes(records, 'cell_client_cpu_cores');
  return [
    group.backend, group.variant, Number(records[0]?.facts.concurrency ?? NaN), records.length, ok.length,
    records.filter((record) => record.outcome === 'failed').length, records.filter((record) => record.outcome === 'invalid').length,
    throughput.n, throughput.mean, throughput.low, throughput.high, useful.mean, useful.low, useful.high,
    ...quantileCells,
    medianOf(metricValues(ok, 'sandbox_start_ms')), medianOf(metricValues(ok, 'run_ms')), medianOf(metricValues(ok, 'teardown_ms')), medianOf(metricValues(ok, 'queue_wait_ms')), medianOf(metricValues(ok, 'peak_rss_kib')),
    loads.length > 0 ? loads.reduce((a, b) => a + b, 0) / loads.length : null,
    ...VERL_VERDICTS.map((verdict) => records.filter((record) => record.facts.verl_verdict === verdict).length),
    ...errorRate(records),
    medianOf(metricValues(ok, 'compile_ms')),
    clientCpu.mean, clientCpu.max, perCellMean(records, 'cell_server_process_cpu_cores').mean,
  ];
}

/** Requests not `ok` (infrastructure failures and verdict mismatches) over all requests, Wilson interval. */
function errorRate(records: readonly TrialRecord[]): [number | null, number | null, number | null] {
  if (records.length === 0) return [null, null, null];
  const errors = records.filter((record) => record.outcome !== 'ok').length;
  const interval = wilsonInterval(errors, records.length);
  return [errors / records.length, interval.low, interval.high];
}

/** One value per cell run: the mean and the largest (the cell where the client came closest to a full core). */
function perCellExtremes(records: readonly TrialRecord[], metric: string): { mean: number | null; max: number | null } {
  const byRun = new Map<string, number>();
  for (const record of records) if (typeof record.metrics[metric] === 'number') byRun.set(String(record.facts.cell_run), record.metrics[metric]!);
  const values = [...byRun.values()];
  return values.length === 0 ? { mean: null, max: null } : { mean: values.reduce((a, b) => a + b, 0) / values.length, max: Math.max(...values) };
}

const fmt = (value: Cell, digits = 0): string => (typeof value === 'number' ? value.toFixed(digits) : value === null ? '—' : String(value));
const percent = (value: Cell): string => (typeof value === 'number' ? (100 * value).toFixed(1) : '—');

function table(rows: Cell[][]): Table {
  const column = (name: (typeof HEADER)[number]) => HEADER.indexOf(name);
  const interval = (row: Cell[], base: string, digits = 0) => `${fmt(row[column(`${base}` as (typeof HEADER)[number])], digits)} [${fmt(row[column(`${base.replace(/_ms$/, '')}_ci95_low_ms` as (typeof HEADER)[number])], digits)}, ${fmt(row[column(`${base.replace(/_ms$/, '')}_ci95_high_ms` as (typeof HEADER)[number])], digits)}]`;
  return {
    caption: 'run-code: verl-shaped /run_code load per backend and client concurrency (ok requests only in latency; every request in the counts)',
    header: ['backend', 'C', 'requests', 'ok', 'infra fail', 'mismatch', 'error % [95% CI]', 'req/s [95% CI]', 'ok/s [95% CI]', 'P50 ms [CI]', 'P95 ms [CI]', 'P99 ms [CI]', 'start P50', 'compile P50', 'run P50', 'client CPU cores (max)', 'load'],
    rows: rows.map((row) => [
      `${row[column('backend')]}`, fmt(row[column('concurrency')]), fmt(row[column('requests')]), fmt(row[column('ok')]), fmt(row[column('infrastructure_failures')]), fmt(row[column('verdict_mismatches')]),
      `${percent(row[column('error_rate')])} [${percent(row[column('error_rate_ci95_low')])}, ${percent(row[column('error_rate_ci95_high')])}]`,
      `${fmt(row[column('requests_per_s_mean')], 2)} [${fmt(row[column('requests_per_s_ci95_low')], 2)}, ${fmt(row[column('requests_per_s_ci95_high')], 2)}]`,
      `${fmt(row[column('ok_per_s_mean')], 2)} [${fmt(row[column('ok_per_s_ci95_low')], 2)}, ${fmt(row[column('ok_per_s_ci95_high')], 2)}]`,
      interval(row, 'round_trip_p50_ms'), interval(row, 'round_trip_p95_ms'), interval(row, 'round_trip_p99_ms'),
      fmt(row[column('sandbox_start_p50_ms')]), fmt(row[column('compile_p50_ms')]), fmt(row[column('run_p50_ms')]),
      `${fmt(row[column('client_cpu_cores_mean')], 2)} (${fmt(row[column('client_cpu_cores_max')], 2)})`, fmt(row[column('load_avg_1m_mean')], 1),
    ]),
    rightAligned: [1, 2, 3, 4, 5],
    footnote: 'error %: requests not ok (infrastructure failures and verdict mismatches) over all requests, Wilson interval. client CPU cores: CPU time of the separate load-client process over the loop\'s wall time, mean (max) over cell runs; near 1.0 the single-threaded client would have been the limit. req/s: every request answered (failures included) per second of a cell run; ok/s: requests with the expected verdict per second; both the mean of the cell runs (one closed loop of C clients per block), t interval over blocks. Round-trip quantiles: type 7 over ok requests; P95 from n ≥ 30, P99 from n ≥ 100; 95% order-statistic (binomial) intervals, which assume independent requests (requests of one cell share its load, so the intervals are optimistic); — = no order statistic reaches the bound.',
  };
}

export function runCodeExtension(input: AnalysisInput): KindExtensionOutput {
  const groups = new Map<string, { group: ArmRef; records: TrialRecord[] }>();
  for (const record of input.records.filter((r) => !r.warmup)) {
    const group = groupOf(record);
    const key = armLabel(group);
    if (!groups.has(key)) groups.set(key, { group, records: [] });
    groups.get(key)!.records.push(record);
  }
  const rows = [...groups.values()]
    .sort((a, b) => a.group.backend.localeCompare(b.group.backend) || Number(a.records[0]?.facts.concurrency) - Number(b.records[0]?.facts.concurrency))
    .map(({ group, records }) => groupRow(group, records));
  return { files: new Map([[RUN_CODE_SUMMARY_FILE, toCsv(HEADER, rows)]]), evidence: [], tables: [table(rows)] };
}

export const runCodeKindAnalysis: KindAnalysis = {
  scenario: 'run_code',
  topic: 'run_code',
  primaryMetrics: ['round_trip_ms', 'sandbox_start_ms'],
  groupOf,
  metricDesign: runCodeMetricDesign,
  cellRunOf: (record) => String(record.facts.cell_run ?? record.block),
  pairOf: (record) => `${record.block}|${String(record.facts.stream_entry ?? record.trial_id)}`,
  specArms: () => [],
  files: [RUN_CODE_SUMMARY_FILE, RUN_CODE_JOURNAL_FILE],
  extension: runCodeExtension,
};
