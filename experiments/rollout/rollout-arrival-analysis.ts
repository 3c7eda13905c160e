/**
 * Arrival and admission figures of the rollout kind (issue 31, items 2 and 7), PURE (records →
 * rollout-arrival.csv, rollout-admission-caps.csv, evidence rows, a table and the panel "throughput
 * against in-flight starts per arrival mode"). Written when the run's records carry a schedule
 * (attempt-start.ts); bundles from before arrivals existed analyse byte-identically.
 *
 * A valid sample is a scored attempt (outcome ok). A start failure is an attempt whose start
 * (staging → the sandbox's first line) did not complete: infrastructure, counted apart from task
 * failures, and every scheduled attempt stays in both denominators.
 *
 * rollout-arrival.csv, one row per cell (arm × C × model capacity × arrival × cap, pooled over blocks):
 *   cell, arm, backend, concurrency, slots, base_ms, per_token_ms, arrival, admission_cap — the cell
 *   runs — cell runs pooled (one per block)
 *   attempts — scheduled attempts (task_invalid ones never ran and are left out)
 *   valid — scored attempts; failures — every other attempt as category=count;…
 *   valid_per_s, valid_per_s_ci95_low, valid_per_s_ci95_high — valid ÷ cell wall of each cell run,
 *     the mean over runs; 95% Student t interval over the runs (one per block) from 2 runs, else
 *     empty: a burst's valid samples land together at its end, so one run is one observation of
 *     its throughput (a bootstrap over time windows of one run would be meaningless)
 *   starts_in_flight_peak — most starts in flight at once (max over runs)
 *   starts_in_flight_mean — time-weighted mean from the first admission to the cell's end (mean over runs)
 *   start_failures, start_failure_rate, start_failure_ci95_low, start_failure_ci95_high — Wilson 95%
 *   start_failure_categories — the start failures' categories as category=count;…
 *   start_n — starts that completed (the start-latency sample)
 *   start_p50_ms (+ _ci95_low/_high), start_p95_ms (n ≥ 30, + CI), start_p99_ms (n ≥ 100, + CI) —
 *     admitted → the sandbox's first line; order-statistic (binomial) intervals, a side no order
 *     statistic reaches is empty (a P99 from fewer than ~300 starts has no upper bound)
 *   admission_wait_p50_ms, admission_wait_p99_ms (n ≥ 100), admission_wait_max_ms — over every
 *     scheduled attempt; pool_wait_p50_ms — arrival → a free worker
 *   cell_wall_ms, load_1m_start, load_1m_end
 *
 * rollout-admission-caps.csv, one row per cell, grouped by everything but the cap (arm × C ×
 * capacity × arrival): the cap with the most valid samples per second is `best`; every other cap is
 * compared with it by the ratio best ÷ this cap of valid samples per second, paired by block (the
 * caps of a block run interleaved): the geometric mean of the per-block ratios with a 95% Student t
 * interval on their logs, from 2 blocks; `slower than best` when the interval's low end is above 1,
 * `indistinguishable from best` otherwise (the best cap is then not established), `no interval`
 * with one block.
 *   group, arm, concurrency, slots, base_ms, per_token_ms, arrival, admission_cap, valid_per_s,
 *   best_cap, ratio_best_to_this, ratio_ci95_low, ratio_ci95_high, conclusion, method
 */
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import { warmupCondition } from './rollout-analysis.ts';
import type { AnalysisInput, KindAnalysis, KindChart, KindExtension, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { quantile, studentTQuantile, wilsonInterval } from '../../harness/stats/index.ts';
import { quantileOrderStatisticCi } from '../../harness/stats/quantile-ci.ts';

export const ROLLOUT_ARRIVAL_FILE = 'rollout-arrival.csv';
export const ROLLOUT_CAPS_FILE = 'rollout-admission-caps.csv';

export const ROLLOUT_ARRIVAL_HEADER = [
  'cell', 'arm', 'backend', 'concurrency', 'slots', 'base_ms', 'per_token_ms', 'arrival', 'admission_cap', 'runs',
  'attempts', 'valid', 'failures', 'valid_per_s', 'valid_per_s_ci95_low', 'valid_per_s_ci95_high',
  'starts_in_flight_peak', 'starts_in_flight_mean',
  'start_failures', 'start_failure_rate', 'start_failure_ci95_low', 'start_failure_ci95_high', 'start_failure_categories',
  'start_n', 'start_p50_ms', 'start_p50_ci95_low', 'start_p50_ci95_high', 'start_p95_ms', 'start_p95_ci95_low', 'start_p95_ci95_high',
  'start_p99_ms', 'start_p99_ci95_low', 'start_p99_ci95_high',
  'admission_wait_p50_ms', 'admission_wait_p99_ms', 'admission_wait_max_ms', 'pool_wait_p50_ms',
  'cell_wall_ms', 'load_1m_start', 'load_1m_end',
] as const;

export const ROLLOUT_CAPS_HEADER = [
  'group', 'arm', 'concurrency', 'slots', 'base_ms', 'per_token_ms', 'arrival', 'admission_cap', 'valid_per_s',
  'best_cap', 'ratio_best_to_this', 'ratio_ci95_low', 'ratio_ci95_high', 'conclusion', 'method',
] as const;

const SCENARIO = 'rollout_cost';
const TOPIC = 'rollout_admission';
const P95_MIN_N = 30;
const P99_MIN_N = 100;
const RUNS_METHOD = '95% Student t interval over cell runs (one per block; none from a single run)';
const RATIO_METHOD = 'ratio of valid samples/s, best ÷ this cap, geometric mean over blocks (paired: the caps of a block run interleaved); 95% Student t interval on the per-block log ratios';

type Interval = { low: number | null; high: number | null };

export interface QuantileFigure {
  value: number | null;
  ci: Interval | null;
}

export interface ArrivalCell {
  cell: string;
  arm: string;
  backend: string;
  concurrency: number;
  slots: number;
  baseMs: number;
  perTokenMs: number;
  arrival: string;
  cap: string;
  runs: number;
  attempts: number;
  valid: number;
  failures: string;
  validPerS: number | null;
  validPerSCi: { low: number; high: number } | null;
  /** valid ÷ wall of each cell run, by block (the throughput's units of replication). */
  runRates: Map<number, number>;
  startsPeak: number | null;
  startsMean: number | null;
  startFailures: number;
  startFailureRate: number | null;
  startFailureCi: { low: number; high: number } | null;
  startFailureCategories: string;
  startN: number;
  startP50: QuantileFigure;
  startP95: QuantileFigure;
  startP99: QuantileFigure;
  admissionWaitP50: number | null;
  admissionWaitP99: number | null;
  admissionWaitMax: number | null;
  poolWaitP50: number | null;
  cellWallMs: number;
  load: [number | null, number | null];
}

const num = (record: TrialRecord, name: string) => record.metrics[name];
const valuesOf = (records: readonly TrialRecord[], name: string) => records.map((r) => num(r, name)).filter((v): v is number => typeof v === 'number');
const mean = (list: readonly number[]) => (list.length === 0 ? null : list.reduce((a, b) => a + b, 0) / list.length);
const capText = (record: TrialRecord) => String(record.facts.admission_cap ?? 'none');
const arrivalTextOf = (record: TrialRecord) => String(record.facts.arrival ?? 'closed');

function tally(list: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of list) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `${key}=${count}`).join(';');
}

/** A quantile with its order-statistic interval, only from `minN` values (the project's P95/P99 rule). */
function quantileFigure(list: readonly number[], p: number, minN: number): QuantileFigure {
  if (list.length < Math.max(1, minN)) return { value: null, ci: null };
  const ci = quantileOrderStatisticCi(list, p);
  return { value: quantile(list, p), ci: ci ? { low: ci.low, high: ci.high } : null };
}

const quantileOrNull = (list: readonly number[], p: number, minN = 1) => (list.length >= minN ? quantile(list, p) : null);

function byKey<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/** Per-run throughput, wall, in-flight starts and load over a cell's runs (each run's figures sit on every record of it). */
function runFigures(records: readonly TrialRecord[]) {
  const runs = byKey(records, (r) => String(r.facts.cell_run ?? r.block));
  const runRates = new Map<number, number>();
  const peaks: number[] = [];
  const means: number[] = [];
  let wall = 0;
  const load: [number | null, number | null] = [null, null];
  for (const run of runs.values()) {
    const first = run[0]!;
    const runWall = num(first, 'cell_wall_ms') ?? 0;
    if (runWall > 0) runRates.set(first.block, (run.filter((r) => r.outcome === 'ok').length * 1000) / runWall);
    wall += runWall;
    const peak = num(first, 'cell_starts_in_flight_peak');
    if (peak !== undefined) peaks.push(peak);
    const meanInFlight = num(first, 'cell_starts_in_flight_mean');
    if (meanInFlight !== undefined) means.push(meanInFlight);
    const runLoad = first.facts.load_average_1m as [number, number] | undefined;
    if (runLoad) [load[0], load[1]] = [load[0] ?? runLoad[0], runLoad[1]];
  }
  return { runs: runs.size, runRates, wall, peak: peaks.length > 0 ? Math.max(...peaks) : null, mean: mean(means), load };
}

/** Mean ± t·sd/√k over k ≥ 2 values (k − 1 degrees of freedom); null below 2. */
export function studentInterval(list: readonly number[]): { mean: number; low: number; high: number } | null {
  if (list.length < 2) return null;
  const m = list.reduce((a, b) => a + b, 0) / list.length;
  const sd = Math.sqrt(list.reduce((a, b) => a + (b - m) ** 2, 0) / (list.length - 1));
  const half = studentTQuantile(0.975, list.length - 1) * (sd / Math.sqrt(list.length));
  return { mean: m, low: m - half, high: m + half };
}

export function summarizeArrivalCells(records: readonly TrialRecord[]): ArrivalCell[] {
  const scheduled = records.filter((r) => !r.warmup && r.failure_category !== 'task_invalid');
  return [...byKey(scheduled, (r) => String(r.facts.cell ?? r.trial_id)).entries()].map(([cell, all]) => {
    const first = all[0]!;
    const ok = all.filter((r) => r.outcome === 'ok');
    const failedStarts = all.filter((r) => r.facts.start_failed === true);
    const starts = valuesOf(all.filter((r) => r.facts.start_failed !== true), 'start_latency_ms');
    const waits = valuesOf(all, 'admission_wait_ms');
    const figures = runFigures(all);
    const rates = [...figures.runRates.values()];
    const rateCi = studentInterval(rates);
    return {
      cell,
      arm: String(first.facts.arm_label ?? armLabel(first.arm)),
      backend: first.arm.backend,
      concurrency: Number(first.facts.concurrency),
      slots: Number(first.facts.model_slots),
      baseMs: Number(first.facts.model_base_ms),
      perTokenMs: Number(first.facts.model_per_token_ms),
      arrival: arrivalTextOf(first),
      cap: capText(first),
      runs: figures.runs,
      attempts: all.length,
      valid: ok.length,
      failures: tally(all.filter((r) => r.outcome !== 'ok').map((r) => r.failure_category ?? 'none')),
      validPerS: mean(rates),
      validPerSCi: rateCi ? { low: rateCi.low, high: rateCi.high } : null,
      runRates: figures.runRates,
      startsPeak: figures.peak,
      startsMean: figures.mean,
      startFailures: failedStarts.length,
      startFailureRate: all.length > 0 ? failedStarts.length / all.length : null,
      startFailureCi: all.length > 0 ? wilsonInterval(failedStarts.length, all.length) : null,
      startFailureCategories: tally(failedStarts.map((r) => r.failure_category ?? 'none')),
      startN: starts.length,
      startP50: quantileFigure(starts, 0.5, 1),
      startP95: quantileFigure(starts, 0.95, P95_MIN_N),
      startP99: quantileFigure(starts, 0.99, P99_MIN_N),
      admissionWaitP50: quantileOrNull(waits, 0.5),
      admissionWaitP99: quantileOrNull(waits, 0.99, P99_MIN_N),
      admissionWaitMax: waits.length > 0 ? Math.max(...waits) : null,
      poolWaitP50: quantileOrNull(valuesOf(all, 'pool_wait_ms'), 0.5),
      cellWallMs: figures.wall,
      load: figures.load,
    };
  });
}

export interface CapComparison {
  group: string;
  cell: ArrivalCell;
  bestCap: string;
  /** best ÷ this cap's valid samples per second, with its interval; null for the best itself or without data. */
  ratio: number | null;
  ci: { low: number; high: number } | null;
  conclusion: 'best' | 'slower than best' | 'indistinguishable from best' | 'no valid samples' | 'no interval';
}

/** best ÷ other paired by block: the geometric mean of the per-block ratios and its t interval (blocks where both had a valid sample). */
export function pairedRatio(best: ReadonlyMap<number, number>, other: ReadonlyMap<number, number>): { ratio: number; ci: { low: number; high: number } | null; blocks: number } | null {
  const logs = [...best.entries()].filter(([block, rate]) => rate > 0 && (other.get(block) ?? 0) > 0).map(([block, rate]) => Math.log(rate / other.get(block)!));
  if (logs.length === 0) return null;
  const interval = studentInterval(logs);
  return { ratio: Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length), ci: interval ? { low: Math.exp(interval.low), high: Math.exp(interval.high) } : null, blocks: logs.length };
}

const groupKey = (cell: ArrivalCell) => `${cell.arm} C=${cell.concurrency} model ${cell.slots}×${cell.baseMs}ms${cell.perTokenMs > 0 ? `+${cell.perTokenMs}ms/token` : ''} ${cell.arrival}`;

/** The cap with the most valid samples per second in each group, and every other cap against it. */
export function compareCaps(cells: readonly ArrivalCell[]): CapComparison[] {
  return [...byKey(cells, groupKey).entries()].flatMap(([group, members]) => {
    const best = members.reduce((top, cell) => ((cell.validPerS ?? -1) > (top.validPerS ?? -1) ? cell : top));
    return members.map((cell): CapComparison => {
      const base = { group, cell, bestCap: best.cap };
      if (cell === best) return { ...base, ratio: null, ci: null, conclusion: best.validPerS ? 'best' : 'no valid samples' };
      if (!cell.validPerS || !best.validPerS) return { ...base, ratio: null, ci: null, conclusion: 'no valid samples' };
      const paired = pairedRatio(best.runRates, cell.runRates);
      if (!paired) return { ...base, ratio: null, ci: null, conclusion: 'no valid samples' };
      const conclusion = paired.ci === null ? 'no interval' : paired.ci.low > 1 ? 'slower than best' : 'indistinguishable from best';
      return { ...base, ratio: paired.ratio, ci: paired.ci, conclusion };
    });
  });
}

const fmt = (value: number | null | undefined, digits = 1) => (value === null || value === undefined ? '–' : value.toFixed(digits));
const interval = (ci: Interval | null | undefined, digits = 0) => (ci ? ` [${fmt(ci.low, digits)}, ${fmt(ci.high, digits)}]` : '');

function arrivalRows(cells: readonly ArrivalCell[]): Cell[][] {
  return cells.map((c) => [
    c.cell, c.arm, c.backend, c.concurrency, c.slots, c.baseMs, c.perTokenMs, c.arrival, c.cap, c.runs,
    c.attempts, c.valid, c.failures, c.validPerS, c.validPerSCi?.low, c.validPerSCi?.high,
    c.startsPeak, c.startsMean,
    c.startFailures, c.startFailureRate, c.startFailureCi?.low, c.startFailureCi?.high, c.startFailureCategories,
    c.startN, c.startP50.value, c.startP50.ci?.low, c.startP50.ci?.high, c.startP95.value, c.startP95.ci?.low, c.startP95.ci?.high,
    c.startP99.value, c.startP99.ci?.low, c.startP99.ci?.high,
    c.admissionWaitP50, c.admissionWaitP99, c.admissionWaitMax, c.poolWaitP50,
    c.cellWallMs, c.load[0], c.load[1],
  ]);
}

function capRows(comparisons: readonly CapComparison[]): Cell[][] {
  return comparisons.map((k) => [
    k.group, k.cell.arm, k.cell.concurrency, k.cell.slots, k.cell.baseMs, k.cell.perTokenMs, k.cell.arrival, k.cell.cap, k.cell.validPerS,
    k.bestCap, k.ratio, k.ci?.low, k.ci?.high, k.conclusion, RATIO_METHOD,
  ]);
}

function arrivalTable(cells: readonly ArrivalCell[], comparisons: readonly CapComparison[]): Table {
  const verdict = new Map(comparisons.map((k) => [k.cell.cell, k]));
  return {
    caption: 'Arrival and admission per cell: valid samples/s against starts in flight, start latency, start failures and admission wait',
    header: ['cell', 'valid/attempts', 'valid/s [95% CI]', 'starts in flight peak (mean)', 'start P50 / P95 / P99 ms [95% CI]', 'start failures [95% CI]', 'admission wait P50 / P99 ms', 'cap vs best'],
    rows: cells.map((c) => {
      const k = verdict.get(c.cell);
      return [
        c.cell, `${c.valid}/${c.attempts}`, `${fmt(c.validPerS, 3)}${interval(c.validPerSCi, 3)}`, `${fmt(c.startsPeak, 0)} (${fmt(c.startsMean, 2)})`,
        `${fmt(c.startP50.value, 0)}${interval(c.startP50.ci)} / ${fmt(c.startP95.value, 0)}${interval(c.startP95.ci)} / ${fmt(c.startP99.value, 0)}${interval(c.startP99.ci)}`,
        `${c.startFailures}/${c.attempts}${interval(c.startFailureCi, 3)}`, `${fmt(c.admissionWaitP50, 0)} / ${fmt(c.admissionWaitP99, 0)}`,
        !k ? '–' : k.conclusion === 'best' ? 'best' : `${k.conclusion}${k.ratio === null ? '' : ` (${fmt(k.ratio, 2)}×${interval(k.ci, 2)})`}`,
      ];
    }),
    footnote: `valid/s: mean over cell runs, ${RUNS_METHOD}; start latency: admitted → the sandbox's first line, order-statistic 95% CIs (– where no order statistic reaches), P95 from n ≥ 30, P99 from n ≥ 100; start failures: Wilson 95%; cap vs best: ${RATIO_METHOD}`,
  };
}

function throughputPanel(cells: readonly ArrivalCell[]): KindChart {
  const points = cells
    .filter((c) => c.validPerS !== null && c.startsPeak !== null)
    .map((c) => ({ series: `${c.arm} ${c.arrival} (C=${c.concurrency}, model ${c.slots}×${c.baseMs}ms)`, x: c.startsPeak!, y: c.validPerS! }))
    .sort((a, b) => a.x - b.x);
  return { id: 'rollout-arrival-throughput', title: 'Throughput against in-flight starts per arrival mode: valid samples/s against the peak of starts in flight (set by the admission cap)', x: { title: 'starts in flight (peak)', log: true }, y: { title: 'valid samples/s' }, points };
}

function evidenceRows(cells: readonly ArrivalCell[], comparisons: readonly CapComparison[], input: AnalysisInput): EvidenceRow[] {
  const spec = input.resolved.spec;
  const runId = input.resolved.run_id;
  const rows: EvidenceRow[] = [];
  for (const c of cells) {
    const base = { scenario: SCENARIO, topic: TOPIC, source: EVIDENCE_SOURCE, cohort: runId, variant: c.cell, condition: `${conditionOf(spec)}${warmupCondition(spec)}; arrival ${c.arrival}; admission cap ${c.cap}; C ${c.concurrency}; slots ${c.slots}; base ${c.baseMs} ms` };
    const limitations = `${c.valid} valid of ${c.attempts} scheduled over ${c.runs} cell run(s)${c.failures ? ` (${c.failures})` : ''}; load 1m ${fmt(c.load[0], 2)}→${fmt(c.load[1], 2)}`;
    const add = (metric: string, statistic: string, n: number, value: number | null | undefined, unit: string, note = '') => {
      if (value !== null && value !== undefined) rows.push({ ...base, metric, statistic, n, value, unit, limitations: note ? `${limitations}; ${note}` : limitations });
    };
    add('valid_samples_per_s', 'mean_rate', c.valid, c.validPerS, 'samples/s');
    add('valid_samples_per_s', 'ci95_low', c.runs, c.validPerSCi?.low, 'samples/s', RUNS_METHOD);
    add('valid_samples_per_s', 'ci95_high', c.runs, c.validPerSCi?.high, 'samples/s', RUNS_METHOD);
    add('starts_in_flight', 'max', c.attempts, c.startsPeak, 'starts');
    add('start_failure_rate', 'proportion', c.attempts, c.startFailureRate, 'fraction');
    add('start_failure_rate', 'ci95_low', c.attempts, c.startFailureCi?.low, 'fraction', 'Wilson');
    add('start_failure_rate', 'ci95_high', c.attempts, c.startFailureCi?.high, 'fraction', 'Wilson');
    for (const [statistic, figure] of [['P50', c.startP50], ['P95_reference', c.startP95], ['P99', c.startP99]] as const) {
      add('start_latency_ms', statistic, c.startN, figure.value, 'ms');
      add('start_latency_ms', `${statistic}_ci95_low`, c.startN, figure.ci?.low, 'ms', 'order-statistic');
      add('start_latency_ms', `${statistic}_ci95_high`, c.startN, figure.ci?.high, 'ms', 'order-statistic');
    }
    add('admission_wait_ms', 'P50', c.attempts, c.admissionWaitP50, 'ms');
    add('admission_wait_ms', 'P99', c.attempts, c.admissionWaitP99, 'ms');
  }
  for (const k of comparisons.filter((k) => k.ratio !== null)) {
    const base = { scenario: SCENARIO, topic: TOPIC, source: EVIDENCE_SOURCE, cohort: runId, variant: `${k.group}: cap ${k.bestCap} vs cap ${k.cell.cap}`, metric: 'valid_samples_per_s_ratio', unit: 'ratio', condition: `${conditionOf(spec)}${warmupCondition(spec)}`, limitations: `${k.conclusion}; ${RATIO_METHOD}` };
    rows.push({ ...base, statistic: 'ratio_best_to_this', n: k.cell.valid, value: k.ratio });
    if (k.ci) rows.push({ ...base, statistic: 'ci95_low', n: k.cell.valid, value: k.ci.low }, { ...base, statistic: 'ci95_high', n: k.cell.valid, value: k.ci.high });
  }
  return rows;
}

/** Null when no record carries a schedule (a bundle from before arrivals existed). */
export function arrivalExtension(input: AnalysisInput): KindExtensionOutput | null {
  if (!input.records.some((r) => typeof r.metrics.admission_wait_ms === 'number')) return null;
  const cells = summarizeArrivalCells(input.records);
  const comparisons = compareCaps(cells);
  return {
    files: new Map([
      [ROLLOUT_ARRIVAL_FILE, toCsv(ROLLOUT_ARRIVAL_HEADER, arrivalRows(cells))],
      [ROLLOUT_CAPS_FILE, toCsv(ROLLOUT_CAPS_HEADER, capRows(comparisons))],
    ]),
    evidence: evidenceRows(cells, comparisons, input),
    tables: [arrivalTable(cells, comparisons)],
    charts: [throughputPanel(cells)],
  };
}

/** A record's schedule in words when it is not the default closed loop without a cap ("burst(64) cap 8"), else ''. */
export function scheduleWords(record: TrialRecord): string {
  const arrival = arrivalTextOf(record);
  const cap = capText(record);
  return arrival === 'closed' && cap === 'none' ? '' : `${arrival} cap ${cap}`;
}

function mergeOutputs(base: KindExtensionOutput, extra: KindExtensionOutput | null): KindExtensionOutput {
  if (!extra) return base;
  return {
    ...base,
    files: new Map([...base.files, ...extra.files]),
    evidence: [...base.evidence, ...extra.evidence],
    tables: [...(base.tables ?? []), ...(extra.tables ?? [])],
    charts: [...(base.charts ?? []), ...(extra.charts ?? [])],
  };
}

/**
 * The rollout kind's analysis with the arrival figures added: the two files, their evidence rows,
 * table and panel, and each cell's group label naming its arrival and cap when they are not the
 * default (two caps of one arm are two groups, never pooled).
 */
export function withArrivalFigures(analysis: KindAnalysis): KindAnalysis {
  const extension: KindExtension | undefined = analysis.extension;
  const groupOf = analysis.groupOf;
  return {
    ...analysis,
    files: [...(analysis.files ?? []), ROLLOUT_ARRIVAL_FILE, ROLLOUT_CAPS_FILE],
    extension: (input) => mergeOutputs(extension ? extension(input) : { files: new Map(), evidence: [] }, arrivalExtension(input)),
    ...(groupOf
      ? {
          groupOf: (record: TrialRecord) => {
            const group = groupOf(record);
            const words = scheduleWords(record);
            return words ? { ...group, label: `${group.label ?? armLabel(group)} ${words}` } : group;
          },
        }
      : {}),
  };
}
