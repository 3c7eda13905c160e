/**
 * The cost of a valid sample (issue 31, items 4–6), PURE: records → rollout-cost.csv, evidence rows,
 * a table and a chart. A valid sample is a scored attempt (outcome ok: it has a reward). Every
 * planned attempt stays in the denominator of the valid-sample rate, whatever became of it; costs
 * are the attempt's tries summed (attempt-tries.ts: each try measured once, in its own cgroup), and
 * "per valid sample" divides the cost of every attempt — failed ones and retries included — by the
 * valid samples they yielded, which is what a trainer pays.
 *
 * rollout-cost.csv, one row per cell (pooled over blocks):
 *   cell, arm, backend, concurrency — the cell (rollout-summary.csv has its other coordinates)
 *   retries_max, backoff_ms, fault_sandbox_kill, fault_model_error, reward_dedup — the controls
 *   attempts — planned attempts (the denominator); tries — tries run (attempts + retries)
 *   valid, valid_rate, valid_rate_ci95_low, valid_rate_ci95_high — scored attempts ÷ attempts, Wilson
 *   infra_failed, task_failed — attempts whose last try failed, by kind of failure
 *   retries, retries_per_valid, recovered_by_retry — retries run; attempts valid only thanks to one
 *   faults_injected, faults_fired — injected faults over all tries; kills that landed before exit
 *   retry_worker_s, retry_cpu_s, retry_cpu_share — wall (with backoff) and CPU of the retries alone,
 *     and their share of all tries' CPU
 *   dedup_lookups, dedup_hits, dedup_hit_rate, scoring_saved_s — reward cache (reward-cache.ts):
 *     lookups, hits, hits ÷ lookups, the cached scorings' wall a hit did not spend
 *   cpu_s_per_valid (+ _ci95_low/_high) — CPU-seconds of every try's cgroup (sandbox, runtime
 *     helpers, scoring sandbox) ÷ valid; empty when any try lacks a CPU figure
 *   gib_s_per_valid (+ CI) — Σ try peak (GiB) × try wall (s) ÷ valid: memory held, reservation-style
 *   worker_s_per_valid (+ CI) — Σ try wall + backoff (a worker's slot held) ÷ valid
 *   worker_hours_per_1m_valid (+ CI) — worker_s_per_valid × 10⁶ ÷ 3600 (the Tax paper's unit:
 *     1 s per rollout = 278 worker-hours per 1M)
 *   steps_per_valid — model requests (agent steps) per valid sample
 *   worker_hours_per_1m_x150 (+ CI) — the Tax paper's 1M × 150-step trajectories, projected: the
 *     per-trajectory substrate time (worker time − model − tool time, per valid sample: start,
 *     scoring, teardown, failures and retries) + 150 × the tool time per step of valid samples;
 *     the model's time is left out (it is the scripted service's configured time, not the substrate's)
 *   harness_cpu_s_per_valid, harness_rss_peak_bytes — the harness's own CPU over the cells ÷ valid
 *     and its peak RSS: recorded apart, never inside any figure above
 *   usd_per_1m_valid, rate_card_source — only when the spec carries rollout.rate_card (prices are
 *     the user's, never the code's): CPU-hours, GiB-hours and worker-hours per 1M × its rates
 *   load_1m_start, load_1m_end — the machine's load average around the cell's first run
 * Intervals: percentile bootstrap over attempts (each with all its tries), ratio of sums, seeded.
 */
import { z } from 'zod';
import { EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import type { KindChart } from '../../harness/analyze/kind-analysis.ts';
import type { Table } from '../../harness/analyze/table.ts';
import type { Cell } from '../../harness/bundle/csv.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { createPrng, seedFromString } from '../../harness/plan/prng.ts';
import { quantile, wilsonInterval } from '../../harness/stats/index.ts';

export const ROLLOUT_COST_FILE = 'rollout-cost.csv';

/** The Tax paper's trajectory length (arXiv 2607.01415: 1M × 150-step trajectories). */
export const TAX_TRAJECTORY_STEPS = 150;
const HOURS_PER_1M = 1e6 / 3600;

export const RateCardSchema = z
  .object({
    /** Where the prices come from (a provider's page and its date): shown beside every USD figure. */
    source: z.string().min(1),
    usd_per_cpu_hour: z.number().nonnegative().optional(),
    usd_per_gib_hour: z.number().nonnegative().optional(),
    usd_per_worker_hour: z.number().nonnegative().optional(),
  })
  .strict()
  .refine((card) => card.usd_per_cpu_hour !== undefined || card.usd_per_gib_hour !== undefined || card.usd_per_worker_hour !== undefined, { message: 'a rate card needs at least one of usd_per_cpu_hour, usd_per_gib_hour, usd_per_worker_hour' });
export type RateCard = z.output<typeof RateCardSchema>;

export const ROLLOUT_COST_HEADER = [
  'cell', 'arm', 'backend', 'concurrency',
  'retries_max', 'backoff_ms', 'fault_sandbox_kill', 'fault_model_error', 'reward_dedup',
  'attempts', 'tries', 'valid', 'valid_rate', 'valid_rate_ci95_low', 'valid_rate_ci95_high', 'infra_failed', 'task_failed',
  'retries', 'retries_per_valid', 'recovered_by_retry', 'faults_injected', 'faults_fired',
  'retry_worker_s', 'retry_cpu_s', 'retry_cpu_share',
  'dedup_lookups', 'dedup_hits', 'dedup_hit_rate', 'scoring_saved_s',
  'cpu_s_per_valid', 'cpu_s_per_valid_ci95_low', 'cpu_s_per_valid_ci95_high',
  'gib_s_per_valid', 'gib_s_per_valid_ci95_low', 'gib_s_per_valid_ci95_high',
  'worker_s_per_valid', 'worker_s_per_valid_ci95_low', 'worker_s_per_valid_ci95_high',
  'worker_hours_per_1m_valid', 'worker_hours_per_1m_valid_ci95_low', 'worker_hours_per_1m_valid_ci95_high',
  'steps_per_valid', 'worker_hours_per_1m_x150', 'worker_hours_per_1m_x150_ci95_low', 'worker_hours_per_1m_x150_ci95_high',
  'harness_cpu_s_per_valid', 'harness_rss_peak_bytes', 'usd_per_1m_valid', 'rate_card_source',
  'load_1m_start', 'load_1m_end',
] as const;

/** One attempt reduced to what its cost needs (all its tries summed). */
interface AttemptCost {
  valid: boolean;
  cpuMs: number | null;
  gibS: number | null;
  workerMs: number;
  /** Worker time not spent in model or tool phases of the last try: the per-trajectory substrate time. */
  fixedMs: number;
  toolMs: number;
  steps: number;
}

type Interval = { low: number; high: number } | null;
export interface Estimate {
  value: number | null;
  ci: Interval;
}

export interface CellCost {
  cell: string;
  arm: string;
  backend: string;
  concurrency: number;
  controls: { retriesMax: number; backoffMs: number; kill: number; modelError: number; dedup: string };
  attempts: number;
  tries: number;
  valid: number;
  validRate: Estimate;
  infraFailed: number;
  taskFailed: number;
  retries: number;
  retriesPerValid: number | null;
  recoveredByRetry: number;
  faultsInjected: number;
  faultsFired: number;
  retryWorkerS: number;
  retryCpuS: number | null;
  retryCpuShare: number | null;
  dedup: { lookups: number; hits: number; hitRate: number | null; savedS: number };
  cpuSPerValid: Estimate;
  gibSPerValid: Estimate;
  workerSPerValid: Estimate;
  workerHoursPer1mValid: Estimate;
  stepsPerValid: number | null;
  workerHoursPer1mX150: Estimate;
  harnessCpuSPerValid: number | null;
  harnessRssPeakBytes: number | null;
  usdPer1mValid: number | null;
  rateCardSource: string | null;
  load: [number | null, number | null];
}

const m = (record: TrialRecord, name: string) => record.metrics[name];
const sumOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function attemptCost(record: TrialRecord): AttemptCost {
  const valid = record.outcome === 'ok';
  // A record without tries (written before retries, or never run: task_invalid) costs what its phases say.
  const workerMs = m(record, 'attempt_worker_ms') ?? m(record, 'wall_ms') ?? 0;
  const modelMs = m(record, 'model_ms') ?? 0;
  const toolMs = m(record, 'tool_ms') ?? 0;
  return {
    valid,
    cpuMs: m(record, 'attempt_cpu_ms') ?? null,
    gibS: m(record, 'attempt_gib_s') ?? null,
    workerMs,
    fixedMs: Math.max(0, workerMs - modelMs - toolMs),
    toolMs: valid ? toolMs : 0,
    steps: valid ? m(record, 'model_requests') ?? 0 : 0,
  };
}

/** Σ pick ÷ valid samples over a sample of attempts; null without a valid one or with an unmeasured attempt. */
function perValid(sample: readonly AttemptCost[], pick: (a: AttemptCost) => number | null): number | null {
  const valid = sample.filter((a) => a.valid).length;
  if (valid === 0) return null;
  let total = 0;
  for (const attempt of sample) {
    const value = pick(attempt);
    if (value === null) return null;
    total += value;
  }
  return total / valid;
}

/** The per-valid time of a 150-step trajectory (s): substrate time per valid sample + 150 × tool time per step. */
function x150Seconds(sample: readonly AttemptCost[]): number | null {
  const fixed = perValid(sample, (a) => a.fixedMs);
  const steps = sumOf(sample.map((a) => a.steps));
  if (fixed === null || steps === 0) return null;
  return (fixed + TAX_TRAJECTORY_STEPS * (sumOf(sample.map((a) => a.toolMs)) / steps)) / 1000;
}

/** Point estimate and percentile bootstrap over attempts (seeded: reruns are byte-identical). */
function estimate(items: readonly AttemptCost[], statistic: (sample: readonly AttemptCost[]) => number | null, resamples: number, seedId: string): Estimate {
  const value = statistic(items);
  if (value === null || items.length < 2) return { value, ci: null };
  const prng = createPrng(seedFromString(seedId));
  const draws: number[] = [];
  const sample: AttemptCost[] = new Array(items.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < items.length; i++) sample[i] = items[prng.int(0, items.length - 1)]!;
    const drawn = statistic(sample);
    if (drawn !== null && Number.isFinite(drawn)) draws.push(drawn);
  }
  return { value, ci: draws.length === 0 ? null : { low: quantile(draws, 0.025), high: quantile(draws, 0.975) } };
}

const scale = (e: Estimate, factor: number): Estimate => ({ value: e.value === null ? null : e.value * factor, ci: e.ci ? { low: e.ci.low * factor, high: e.ci.high * factor } : null });

interface SpecControls {
  retries?: { max?: number; backoff_ms?: number };
  faults?: { sandbox_kill?: number; model_error?: number };
  reward_dedup?: string;
  rate_card?: RateCard;
}

/** One value per cell run (the cell_* copies on every record): summed over the cell's runs. */
function perRun(records: readonly TrialRecord[], name: string): number | null {
  const runs = new Map<string, number | undefined>();
  for (const r of records) runs.set(String(r.facts.cell_run ?? r.block), m(r, name));
  const values = [...runs.values()];
  return values.every((v): v is number => v !== undefined) && values.length > 0 ? sumOf(values) : null;
}

function usdPer1m(card: RateCard | undefined, cpuS: number | null, gibS: number | null, workerS: number | null): number | null {
  if (!card) return null;
  const parts: [number | undefined, number | null][] = [[card.usd_per_cpu_hour, cpuS], [card.usd_per_gib_hour, gibS], [card.usd_per_worker_hour, workerS]];
  let total = 0;
  for (const [rate, seconds] of parts) {
    if (rate === undefined) continue;
    if (seconds === null) return null;
    total += rate * seconds * HOURS_PER_1M;
  }
  return total;
}

export function summarizeCosts(records: readonly TrialRecord[], controls: SpecControls, resamples: number, runId: string): CellCost[] {
  const formal = records.filter((r) => !r.warmup);
  const cells = [...new Set(formal.map((r) => String(r.facts.cell ?? r.trial_id)))];
  return cells.map((cell) => {
    const all = formal.filter((r) => String(r.facts.cell ?? r.trial_id) === cell);
    const first = all[0]!;
    const costs = all.map(attemptCost);
    const valid = costs.filter((c) => c.valid).length;
    const retries = sumOf(all.map((r) => m(r, 'retries') ?? 0));
    const retryCpu = all.map((r) => m(r, 'retry_cpu_ms'));
    const allCpu = all.map((r) => m(r, 'attempt_cpu_ms'));
    const retryCpuMs = retryCpu.every((v): v is number => v !== undefined) ? sumOf(retryCpu as number[]) : null;
    const allCpuMs = allCpu.every((v): v is number => v !== undefined) ? sumOf(allCpu as number[]) : null;
    const lookups = all.map((r) => r.facts.reward_cache as { hit?: boolean; saved_ms?: number } | undefined).filter((l): l is { hit?: boolean; saved_ms?: number } => l !== undefined && l !== null);
    const hits = lookups.filter((l) => l.hit === true);
    const tries = all.flatMap((r) => (Array.isArray(r.facts.tries) ? (r.facts.tries as { fault?: string | null; fault_fired?: boolean | null }[]) : []));
    const seed = (what: string) => `${runId}:cost:${what}:${cell}`;
    const cpu = estimate(costs, (s) => perValid(s, (a) => (a.cpuMs === null ? null : a.cpuMs / 1000)), resamples, seed('cpu'));
    const gib = estimate(costs, (s) => perValid(s, (a) => a.gibS), resamples, seed('gib'));
    const worker = estimate(costs, (s) => perValid(s, (a) => a.workerMs / 1000), resamples, seed('worker'));
    const harnessCpuMs = perRun(all, 'cell_harness_cpu_ms');
    const rss = all.map((r) => m(r, 'cell_harness_rss_peak_bytes')).filter((v): v is number => v !== undefined);
    const load = first.facts.load_average_1m as [number, number] | undefined;
    const steps = sumOf(costs.map((c) => c.steps));
    const wilson = all.length > 0 ? wilsonInterval(valid, all.length) : null;
    return {
      cell,
      arm: String(first.facts.arm_label ?? first.arm.backend),
      backend: first.arm.backend,
      concurrency: Number(first.facts.concurrency),
      controls: { retriesMax: controls.retries?.max ?? 0, backoffMs: controls.retries?.backoff_ms ?? 0, kill: controls.faults?.sandbox_kill ?? 0, modelError: controls.faults?.model_error ?? 0, dedup: controls.reward_dedup ?? 'off' },
      attempts: all.length,
      tries: sumOf(all.map((r) => m(r, 'tries') ?? (r.t_spawn_ns === null ? 0 : 1))),
      valid,
      validRate: { value: all.length > 0 ? valid / all.length : null, ci: wilson },
      infraFailed: all.filter((r) => r.outcome !== 'ok' && r.failure_category !== 'task_failed').length,
      taskFailed: all.filter((r) => r.failure_category === 'task_failed').length,
      retries,
      retriesPerValid: valid > 0 ? retries / valid : null,
      recoveredByRetry: all.filter((r) => r.outcome === 'ok' && (m(r, 'retries') ?? 0) > 0).length,
      faultsInjected: tries.filter((t) => t.fault).length,
      faultsFired: tries.filter((t) => t.fault_fired === true).length,
      retryWorkerS: sumOf(all.map((r) => m(r, 'retry_worker_ms') ?? 0)) / 1000,
      retryCpuS: retryCpuMs === null ? null : retryCpuMs / 1000,
      retryCpuShare: retryCpuMs !== null && allCpuMs ? retryCpuMs / allCpuMs : null,
      dedup: { lookups: lookups.length, hits: hits.length, hitRate: lookups.length > 0 ? hits.length / lookups.length : null, savedS: sumOf(hits.map((h) => h.saved_ms ?? 0)) / 1000 },
      cpuSPerValid: cpu,
      gibSPerValid: gib,
      workerSPerValid: worker,
      workerHoursPer1mValid: scale(worker, HOURS_PER_1M),
      stepsPerValid: valid > 0 ? steps / valid : null,
      workerHoursPer1mX150: scale(estimate(costs, x150Seconds, resamples, seed('x150')), HOURS_PER_1M),
      harnessCpuSPerValid: harnessCpuMs !== null && valid > 0 ? harnessCpuMs / 1000 / valid : null,
      harnessRssPeakBytes: rss.length > 0 ? Math.max(...rss) : null,
      usdPer1mValid: usdPer1m(controls.rate_card, cpu.value, gib.value, worker.value),
      rateCardSource: controls.rate_card?.source ?? null,
      load: [load?.[0] ?? null, load?.[1] ?? null],
    };
  });
}

export function costRows(costs: readonly CellCost[]): Cell[][] {
  const e = (x: Estimate): Cell[] => [x.value, x.ci?.low, x.ci?.high];
  return costs.map((c) => [
    c.cell, c.arm, c.backend, c.concurrency,
    c.controls.retriesMax, c.controls.backoffMs, c.controls.kill, c.controls.modelError, c.controls.dedup,
    c.attempts, c.tries, c.valid, ...e(c.validRate), c.infraFailed, c.taskFailed,
    c.retries, c.retriesPerValid, c.recoveredByRetry, c.faultsInjected, c.faultsFired,
    c.retryWorkerS, c.retryCpuS, c.retryCpuShare,
    c.dedup.lookups, c.dedup.hits, c.dedup.hitRate, c.dedup.savedS,
    ...e(c.cpuSPerValid), ...e(c.gibSPerValid), ...e(c.workerSPerValid), ...e(c.workerHoursPer1mValid),
    c.stepsPerValid, ...e(c.workerHoursPer1mX150),
    c.harnessCpuSPerValid, c.harnessRssPeakBytes, c.usdPer1mValid, c.rateCardSource,
    c.load[0], c.load[1],
  ]);
}

const f = (value: number | null | undefined, digits: number) => (value === null || value === undefined ? '–' : value.toFixed(digits));
const withCi = (x: Estimate, digits: number) => `${f(x.value, digits)}${x.ci ? ` [${x.ci.low.toFixed(digits)}, ${x.ci.high.toFixed(digits)}]` : ''}`;

/** The report panel: cost per valid sample per backend (each cell's arm and C). */
export function costTable(costs: readonly CellCost[]): Table {
  return {
    caption: 'Cost per valid sample per backend: valid-sample rate, retries, reward dedup, CPU, memory and worker-hours [95% CI]; the harness apart',
    header: ['cell', 'valid/attempts', 'valid rate [CI]', 'retries/valid', 'retry CPU s', 'dedup hits', 'CPU s/valid', 'GiB·s/valid', 'worker-h per 1M valid', 'worker-h per 1M × 150 steps', 'harness CPU s/valid', 'USD per 1M valid'],
    rows: costs.map((c) => [
      c.cell, `${c.valid}/${c.attempts}`, withCi(c.validRate, 3), f(c.retriesPerValid, 3), f(c.retryCpuS, 2), c.dedup.lookups > 0 ? `${c.dedup.hits}/${c.dedup.lookups}` : '–',
      withCi(c.cpuSPerValid, 3), withCi(c.gibSPerValid, 4), withCi(c.workerHoursPer1mValid, 0), withCi(c.workerHoursPer1mX150, 0), f(c.harnessCpuSPerValid, 3),
      c.usdPer1mValid === null ? '–' : `${c.usdPer1mValid.toFixed(2)} (${c.rateCardSource})`,
    ]),
    footnote: `valid = scored; every planned attempt in the denominator; costs are every try's own cgroup (sandbox + scoring), failed attempts and retries included, ÷ valid; CI: Wilson (rate), percentile bootstrap over attempts (costs); 1 s per rollout = ${HOURS_PER_1M.toFixed(0)} worker-h per 1M; × 150: substrate time per valid sample + ${TAX_TRAJECTORY_STEPS} × tool time per step, model time excluded; the harness's CPU is never inside a backend's figure`,
  };
}

export function costChart(costs: readonly CellCost[]): KindChart {
  return {
    id: 'rollout-cost',
    title: 'Cost per valid sample per backend: CPU-seconds per valid sample against C',
    x: { title: 'concurrency C', log: true },
    y: { title: 'CPU-s per valid sample (sandbox + scoring)' },
    points: costs.filter((c) => c.cpuSPerValid.value !== null).map((c) => ({ series: c.arm, x: c.concurrency, y: c.cpuSPerValid.value! })),
  };
}

export function costEvidence(costs: readonly CellCost[], base: { scenario: string; cohort: string; condition: string; limits: string }): EvidenceRow[] {
  const rows: EvidenceRow[] = [];
  for (const c of costs) {
    const row = { scenario: base.scenario, topic: 'rollout_cost', source: EVIDENCE_SOURCE, cohort: base.cohort, variant: c.cell, condition: `${base.condition}; C ${c.concurrency}; retries ${c.controls.retriesMax}; faults kill ${c.controls.kill} model ${c.controls.modelError}; dedup ${c.controls.dedup}`, limitations: `${base.limits}; ${c.valid} valid of ${c.attempts} attempts (${c.tries} tries); load ${f(c.load[0], 2)}` };
    const push = (metric: string, unit: string, x: Estimate, n: number) => {
      if (x.value === null) return;
      rows.push({ ...row, metric, statistic: 'estimate', n, value: x.value, unit });
      if (x.ci) rows.push({ ...row, metric, statistic: 'ci95_low', n, value: x.ci.low, unit }, { ...row, metric, statistic: 'ci95_high', n, value: x.ci.high, unit });
    };
    push('valid_sample_rate', 'fraction', c.validRate, c.attempts);
    push('cpu_s_per_valid_sample', 's', c.cpuSPerValid, c.attempts);
    push('gib_s_per_valid_sample', 'GiB·s', c.gibSPerValid, c.attempts);
    push('worker_hours_per_1m_valid', 'worker-h', c.workerHoursPer1mValid, c.attempts);
    push('worker_hours_per_1m_x150', 'worker-h', c.workerHoursPer1mX150, c.attempts);
    if (c.retriesPerValid !== null) rows.push({ ...row, metric: 'retries_per_valid_sample', statistic: 'mean', n: c.valid, value: c.retriesPerValid, unit: 'retries' });
    if (c.dedup.hitRate !== null) rows.push({ ...row, metric: 'reward_dedup_hit_rate', statistic: 'rate', n: c.dedup.lookups, value: c.dedup.hitRate, unit: 'fraction' });
    if (c.harnessCpuSPerValid !== null) rows.push({ ...row, metric: 'harness_cpu_s_per_valid_sample', statistic: 'mean', n: c.valid, value: c.harnessCpuSPerValid, unit: 's' });
  }
  return rows;
}
