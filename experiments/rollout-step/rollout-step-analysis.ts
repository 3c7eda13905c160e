/**
 * The rollout-step kind's analysis, PURE (records → rollout-step.csv, evidence rows, a table and the
 * "step time against K per prefix strategy" chart). The step is the unit of replication of every step
 * figure (step time, straggler ratio, trainer wait, staleness): one value per step, never one per
 * attempt record that carries a copy. Per-attempt figures (start_ms, reward) are the attempts' own.
 * Header and meaning of each column: docs/rollout-step.md.
 */
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import type { AnalysisInput, KindAnalysis, KindChart, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import type { MetricDesign } from '../../harness/analyze/metric-design.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { median, medianOrderStatisticCi, MIN_PAIRS, P95_MIN_N, percentileInterval, quantile, seedFromString, unpairedReplicates, wilsonInterval } from '../../harness/stats/index.ts';
import { quantileOrderStatisticCi } from '../../harness/stats/quantile-ci.ts';
import type { PoolCounts } from './warm-pool.ts';
import { costEvidence, costRows, costTable, ROLLOUT_COST_FILE, ROLLOUT_COST_HEADER } from '../rollout/sample-cost.ts';
import { stepValidity, type CostControls, type StepValidity } from './step-validity.ts';

export const ROLLOUT_STEP_FILE = 'rollout-step.csv';

export const ROLLOUT_STEP_HEADER = [
  'cell', 'arm', 'backend', 'prefix', 'group_size', 'tasks_per_step', 'workers', 'pool_size', 'staleness_bound', 'train_ms',
  'planned', 'valid', 'failed', 'failures', 'not_applicable',
  'steps', 'step_p50_ms', 'step_p50_ci95_low', 'step_p50_ci95_high', 'step_p95_ms', 'step_p95_ci95_low', 'step_p95_ci95_high',
  'straggler_p50', 'straggler_max',
  'start_p50_ms', 'start_n', 'saving_vs_fresh_ms', 'saving_ci95_low', 'saving_ci95_high',
  'pool_claims', 'pool_hits', 'pool_hit_rate', 'pool_hit_ci95_low', 'pool_hit_ci95_high', 'pool_start_failures', 'pool_unused',
  'trainer_wait_p50_ms', 'trainer_wait_max_ms', 'staleness_mean', 'staleness_max',
  'reward_mean', 'load_1m_start', 'load_1m_end',
  'fork_prepare_p50_ms', 'fork_checkpoint_p50_ms', 'fork_groups', 'fork_restore_p50_ms', 'fork_attempt_p50_ms', 'fork_children',
  'reward_parity_compared', 'reward_parity_agree',
  'tries', 'retries', 'valid_rate', 'valid_rate_ci95_low', 'valid_rate_ci95_high', 'retries_per_valid', 'retries_per_valid_ci95_low', 'retries_per_valid_ci95_high',
  'recovered_by_retry', 'faults_injected', 'faults_fired', 'retry_worker_s', 'retry_cpu_s', 'retry_cpu_share', 'dedup_lookups', 'dedup_hits', 'scoring_saved_s',
  'pool_unclaimed_cpu_s',
] as const;

const SCENARIO = 'rl_step';
const LIMITS = 'B tasks × K attempts per step, C rollout workers in one shared budget; scripted deterministic model service; stand-in trainer at a fixed rate';
/** Step metrics: one value per step, copied onto each of its attempts. */
const STEP_METRICS = new Set(['step_ms', 'group_straggler_ratio', 'trainer_wait_ms', 'staleness']);

const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);
const defined = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;
const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);

export interface Interval {
  low: number | null;
  high: number | null;
}

export interface StepCellSummary {
  cell: string;
  arm: string;
  backend: string;
  prefix: string;
  groupSize: number;
  tasksPerStep: number | null;
  workers: number | null;
  poolSize: number | null;
  stalenessBound: number | null;
  trainMs: number | null;
  planned: number;
  valid: number;
  failures: string;
  notApplicable: string | null;
  /** One value per step (the step's records agree on it). */
  stepMs: number[];
  stepP50: number | null;
  stepP50Ci: Interval | null;
  stepP95: number | null;
  stepP95Ci: Interval | null;
  stragglers: number[];
  starts: number[];
  saving: { ms: number; ci: Interval | null } | null;
  pool: PoolCounts | null;
  poolHitCi: Interval | null;
  trainerWaits: number[];
  staleness: number[];
  reward: number | null;
  load: [number | null, number | null];
  /** fork: one prepare and checkpoint per group, one restore and attempt run per child. */
  fork: { prepare: number[]; checkpoint: number[]; restore: number[]; attempt: number[] } | null;
  /** Against fresh on the same arm and K: matched attempts (block, step, slot, member) both scored, and how many got the same reward. */
  rewardParity: { compared: number; agree: number } | null;
  /** Valid samples, retries and their cost (step-validity.ts); null for a cell that never ran. */
  validity: StepValidity | null;
}

interface ForkFacts {
  prepare_ms: number;
  checkpoint_ms: number;
  restore_ms: number;
  attempt_ms: number | null;
}

/** Fork phases: the group's prepare and checkpoint once per group (every child carries a copy), restore and attempt per child. */
function forkPhases(records: readonly TrialRecord[]): StepCellSummary['fork'] {
  const forked = records.filter((r) => r.facts.fork);
  if (forked.length === 0) return null;
  const groups = new Map<string, ForkFacts>();
  for (const r of forked) groups.set(`${String(r.facts.step_run)}|${String(r.facts.group_slot)}`, r.facts.fork as ForkFacts);
  const phases = forked.map((r) => r.facts.fork as ForkFacts);
  return {
    prepare: [...groups.values()].map((g) => g.prepare_ms),
    checkpoint: [...groups.values()].map((g) => g.checkpoint_ms),
    restore: phases.map((p) => p.restore_ms),
    attempt: phases.map((p) => p.attempt_ms).filter(defined),
  };
}

const matchKey = (r: TrialRecord) => `${r.block}|${String(r.facts.step)}|${String(r.facts.group_slot)}|${String(r.facts.group_member)}`;

/** Reward parity: the same task and scripted path (matched attempt) must score the same however its start was made. */
export function rewardParity(fresh: readonly TrialRecord[], other: readonly TrialRecord[]): { compared: number; agree: number } {
  const freshReward = new Map(fresh.filter((r) => r.outcome === 'ok').map((r) => [matchKey(r), num(r.metrics.reward)]));
  let compared = 0;
  let agree = 0;
  for (const r of other.filter((o) => o.outcome === 'ok')) {
    const reward = freshReward.get(matchKey(r));
    if (reward === undefined || reward === null) continue;
    compared++;
    if (num(r.metrics.reward) === reward) agree++;
  }
  return { compared, agree };
}

const cellOf = (record: TrialRecord) => String(record.facts.cell ?? record.trial_id);

/**
 * One record per step (the first that carries the metric): the step's copies of a step metric are
 * one value. Every attempt that ran carries it, failed ones too, so a step whose attempts all failed
 * keeps its time (a step is never dropped because its samples were lost).
 */
function perStep(records: readonly TrialRecord[], metric: string): number[] {
  const seen = new Map<string, number>();
  for (const record of records) {
    const key = String(record.facts.step_run ?? '');
    const value = num(record.metrics[metric]);
    if (value !== null && !seen.has(key)) seen.set(key, value);
  }
  return [...seen.values()];
}

/** Warm-pool counts summed over the cell's runs (each run's records carry the same counts). */
function poolCounts(records: readonly TrialRecord[]): PoolCounts | null {
  const byRun = new Map<string, PoolCounts>();
  for (const record of records) if (record.facts.pool) byRun.set(String(record.facts.cell_run), record.facts.pool as PoolCounts);
  if (byRun.size === 0) return null;
  const total: PoolCounts = { claims: 0, hits: 0, misses: 0, started: 0, startFailures: 0, unused: 0, retired: 0, expired: 0, unclaimedCpuMs: 0, notes: [] };
  for (const counts of byRun.values()) {
    for (const key of ['claims', 'hits', 'misses', 'started', 'startFailures', 'unused', 'retired', 'expired'] as const) total[key] += counts[key] ?? 0;
    // a bundle older than the figure, or a pool sandbox without one, leaves the sum unknown
    const cpu = counts.unclaimedCpuMs ?? null;
    total.unclaimedCpuMs = cpu === null || total.unclaimedCpuMs === null ? null : total.unclaimedCpuMs + cpu;
    total.notes.push(...counts.notes);
  }
  return total;
}

function tally(list: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const value of list) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `${key}=${count}`).join(';');
}

function stepQuantiles(steps: readonly number[]): Pick<StepCellSummary, 'stepP50' | 'stepP50Ci' | 'stepP95' | 'stepP95Ci'> {
  const ci50 = medianOrderStatisticCi(steps);
  const p95 = steps.length >= P95_MIN_N ? quantile(steps, 0.95) : null;
  const ci95 = p95 === null ? null : quantileOrderStatisticCi(steps, 0.95);
  return { stepP50: steps.length > 0 ? median(steps) : null, stepP50Ci: ci50 ? { low: ci50.low, high: ci50.high } : null, stepP95: p95, stepP95Ci: ci95 ? { low: ci95.low, high: ci95.high } : null };
}

function summarizeCell(cell: string, all: readonly TrialRecord[]): StepCellSummary {
  const first = all[0]!;
  const ok = all.filter((r) => r.outcome === 'ok');
  const facts = first.facts;
  const steps = perStep(all, 'step_ms');
  const pool = poolCounts(all);
  const loads = all.map((r) => r.facts.load_average_1m as [number, number] | undefined).filter(defined);
  return {
    cell,
    arm: String(facts.arm_label ?? armLabel(first.arm)),
    backend: first.arm.backend,
    prefix: String(facts.prefix),
    groupSize: Number(facts.group_size),
    tasksPerStep: num(facts.tasks_per_step),
    workers: num(facts.workers),
    poolSize: num(facts.pool_size),
    stalenessBound: num(facts.trainer_staleness_bound),
    trainMs: num(facts.trainer_train_ms),
    planned: all.length,
    valid: ok.length,
    failures: tally(all.filter((r) => r.outcome !== 'ok').map((r) => r.failure_category ?? 'none')),
    notApplicable: typeof facts.prefix_unavailable === 'string' ? facts.prefix_unavailable : null,
    stepMs: steps,
    ...stepQuantiles(steps),
    stragglers: perStep(all, 'group_straggler_ratio'),
    starts: ok.map((r) => num(r.metrics.start_ms)).filter(defined),
    saving: null,
    pool,
    poolHitCi: pool && pool.claims > 0 ? wilsonInterval(pool.hits, pool.claims) : null,
    trainerWaits: perStep(all, 'trainer_wait_ms'),
    staleness: perStep(all, 'staleness'),
    reward: mean(ok.map((r) => num(r.metrics.reward)).filter(defined)),
    load: loads.length > 0 ? [loads[0]![0], loads.at(-1)![1]] : [null, null],
    fork: forkPhases(all),
    rewardParity: null,
    validity: null,
  };
}

/**
 * start_ms saving of a prefix strategy against fresh on the same arm and K: median(fresh) −
 * median(this), with a percentile bootstrap of that difference (attempts resampled within each
 * side, independently: the two cells' attempts are not matched one to one); no interval below
 * MIN_PAIRS (6) attempts a side.
 */
export function savingVsFresh(fresh: readonly number[], other: readonly number[], resamples: number, seedId: string): { ms: number; ci: Interval | null } | null {
  if (fresh.length === 0 || other.length === 0) return null;
  const ms = median(fresh) - median(other);
  // as the comparisons: no interval below MIN_PAIRS values a side (a bootstrap of 2 values is its own range)
  if (fresh.length < MIN_PAIRS || other.length < MIN_PAIRS) return { ms, ci: null };
  const replicates = unpairedReplicates(fresh, other, resamples, seedFromString(seedId)).difference.sort();
  const ci = percentileInterval(replicates);
  return { ms, ci: { low: ci.low, high: ci.high } };
}

export function summarizeStepCells(records: readonly TrialRecord[], resamples: number, runId: string, controls: CostControls = {}): StepCellSummary[] {
  const formal = records.filter((r) => !r.warmup);
  const cells = [...new Set(formal.map(cellOf))];
  const validity = stepValidity(formal, controls, resamples, runId);
  const summaries = cells.map((cell) => ({ ...summarizeCell(cell, formal.filter((r) => cellOf(r) === cell)), validity: validity.get(cell) ?? null }));
  for (const s of summaries) {
    if (s.prefix === 'fresh') continue;
    const fresh = summaries.find((other) => other.prefix === 'fresh' && other.arm === s.arm && other.groupSize === s.groupSize);
    if (fresh) s.saving = savingVsFresh(fresh.starts, s.starts, resamples, `${runId}:start-saving:${s.cell}`);
    if (fresh) s.rewardParity = rewardParity(formal.filter((r) => cellOf(r) === fresh.cell), formal.filter((r) => cellOf(r) === s.cell));
  }
  return summaries;
}

function csvRow(s: StepCellSummary): Cell[] {
  return [
    s.cell, s.arm, s.backend, s.prefix, s.groupSize, s.tasksPerStep, s.workers, s.poolSize, s.stalenessBound, s.trainMs,
    s.planned, s.valid, s.planned - s.valid, s.failures, s.notApplicable,
    s.stepMs.length, s.stepP50, s.stepP50Ci?.low, s.stepP50Ci?.high, s.stepP95, s.stepP95Ci?.low, s.stepP95Ci?.high,
    s.stragglers.length > 0 ? median(s.stragglers) : null, s.stragglers.length > 0 ? Math.max(...s.stragglers) : null,
    s.starts.length > 0 ? median(s.starts) : null, s.starts.length, s.saving?.ms, s.saving?.ci?.low, s.saving?.ci?.high,
    s.pool?.claims, s.pool?.hits, s.pool && s.pool.claims > 0 ? s.pool.hits / s.pool.claims : null, s.poolHitCi?.low, s.poolHitCi?.high, s.pool?.startFailures, s.pool?.unused,
    s.trainerWaits.length > 0 ? median(s.trainerWaits) : null, s.trainerWaits.length > 0 ? Math.max(...s.trainerWaits) : null, mean(s.staleness), s.staleness.length > 0 ? Math.max(...s.staleness) : null,
    s.reward, s.load[0], s.load[1],
    p50(s.fork?.prepare), p50(s.fork?.checkpoint), s.fork?.prepare.length, p50(s.fork?.restore), p50(s.fork?.attempt), s.fork?.restore.length,
    s.rewardParity?.compared, s.rewardParity?.agree,
    ...validityCells(s.validity),
    s.pool?.unclaimedCpuMs == null ? null : s.pool.unclaimedCpuMs / 1000,
  ];
}

function validityCells(v: StepValidity | null): Cell[] {
  if (!v) return Array.from({ length: 17 }, () => null);
  const c = v.cost;
  return [
    c.tries, c.retries, c.validRate.value, c.validRate.ci?.low, c.validRate.ci?.high, c.retriesPerValid, v.retriesPerValidCi?.low, v.retriesPerValidCi?.high,
    c.recoveredByRetry, c.faultsInjected, c.faultsFired, c.retryWorkerS, c.retryCpuS, c.retryCpuShare, c.dedup.lookups, c.dedup.hits, c.dedup.savedS,
  ];
}

const p50 = (values: readonly number[] | undefined) => (values && values.length > 0 ? median(values) : null);
const f = (value: number | null | undefined, digits = 0) => (value === null || value === undefined ? '–' : value.toFixed(digits));
const ci = (interval: Interval | null | undefined, digits = 0) => (interval && interval.low !== null && interval.high !== null ? ` [${interval.low.toFixed(digits)}, ${interval.high.toFixed(digits)}]` : '');

function stepTable(summaries: readonly StepCellSummary[]): Table {
  return {
    caption: 'RL steps per cell: step time P50/P95 [95% CI] over steps, the worst group straggler, start time and its saving against fresh, warm-pool hits, trainer wait and staleness',
    header: ['cell', 'valid/planned', 'valid rate [CI]', 'retries/valid [CI]', 'steps', 'step P50 ms', 'step P95 ms', 'straggler P50 (max)', 'start P50 ms', 'saving vs fresh ms', 'pool hits', 'trainer wait P50 ms', 'staleness mean (max)', 'fork prepare / checkpoint / restore P50 ms', 'reward parity vs fresh', 'failures / not applicable'],
    rows: summaries.map((s) => [
      s.cell, `${s.valid}/${s.planned}`,
      s.validity ? `${f(s.validity.cost.validRate.value, 3)}${ci(s.validity.cost.validRate.ci, 3)}` : '–',
      s.validity ? `${f(s.validity.cost.retriesPerValid, 3)}${ci(s.validity.retriesPerValidCi, 3)}` : '–',
      String(s.stepMs.length), `${f(s.stepP50)}${ci(s.stepP50Ci)}`, `${f(s.stepP95)}${ci(s.stepP95Ci)}`,
      s.stragglers.length > 0 ? `${median(s.stragglers).toFixed(2)} (${Math.max(...s.stragglers).toFixed(2)})` : '–',
      f(s.starts.length > 0 ? median(s.starts) : null), s.saving ? `${f(s.saving.ms)}${ci(s.saving.ci)}` : '–',
      s.pool ? `${s.pool.hits}/${s.pool.claims}${ci(s.poolHitCi, 2)}` : '–',
      f(s.trainerWaits.length > 0 ? median(s.trainerWaits) : null), s.staleness.length > 0 ? `${f(mean(s.staleness), 2)} (${Math.max(...s.staleness)})` : '–',
      s.fork ? `${f(p50(s.fork.prepare))} / ${f(p50(s.fork.checkpoint))} / ${f(p50(s.fork.restore))}` : '–',
      s.rewardParity ? `${s.rewardParity.agree}/${s.rewardParity.compared}` : '–',
      s.notApplicable ? `not applicable: ${s.notApplicable}` : s.failures || '–',
    ]),
    footnote: `valid rate = valid ÷ planned attempts, Wilson CI; retries/valid: percentile bootstrap over attempts (a retried attempt counts once, its retries apart); step P50 CI: order-statistic (binomial), needs ≥ 6 steps; P95 only with ≥ ${P95_MIN_N} steps; saving = median(fresh start) − median(this start), percentile bootstrap over attempts; pool hit CI: Wilson`,
  };
}

function stepChart(summaries: readonly StepCellSummary[]): KindChart {
  return {
    id: 'rollout-step-time-vs-k',
    title: 'Step time (P50 over steps) against group size K, per arm and prefix strategy',
    x: { title: 'group size K' },
    y: { title: 'step time P50, ms' },
    points: summaries.filter((s) => s.stepP50 !== null).map((s) => ({ series: `${s.arm} ${s.prefix}`, x: s.groupSize, y: s.stepP50! })),
  };
}

function evidenceRows(summaries: readonly StepCellSummary[], runId: string, condition: string): EvidenceRow[] {
  const rows: EvidenceRow[] = [];
  for (const s of summaries) {
    const base = { scenario: SCENARIO, source: EVIDENCE_SOURCE, cohort: runId, variant: `${s.arm} ${s.prefix} K=${s.groupSize}`, condition, limitations: LIMITS };
    if (s.notApplicable) {
      rows.push({ ...base, topic: 'step_time', metric: 'step_ms', statistic: 'not_applicable', n: 0, value: s.notApplicable, unit: 'ms' });
      continue;
    }
    const steps = s.stepMs.length;
    rows.push({ ...base, topic: 'step_time', metric: 'step_ms', statistic: 'P50', n: steps, value: s.stepP50, unit: 'ms' });
    if (s.stepP50Ci) rows.push({ ...base, topic: 'step_time', metric: 'step_ms', statistic: 'ci95_low', n: steps, value: s.stepP50Ci.low, unit: 'ms' }, { ...base, topic: 'step_time', metric: 'step_ms', statistic: 'ci95_high', n: steps, value: s.stepP50Ci.high, unit: 'ms' });
    if (s.stepP95 !== null) rows.push({ ...base, topic: 'step_time', metric: 'step_ms', statistic: 'P95_reference', n: steps, value: s.stepP95, unit: 'ms' });
    if (s.stragglers.length > 0) rows.push({ ...base, topic: 'group_straggler', metric: 'group_straggler_ratio', statistic: 'P50', n: s.stragglers.length, value: median(s.stragglers), unit: 'ratio' });
    if (s.saving) {
      rows.push({ ...base, topic: 'prefix_saving', metric: 'start_ms', statistic: 'diff_of_medians', n: s.starts.length, value: s.saving.ms, unit: 'ms', limitations: `${LIMITS}; fresh − ${s.prefix}` });
      if (s.saving.ci) rows.push({ ...base, topic: 'prefix_saving', metric: 'start_ms', statistic: 'diff_ci95_low', n: s.starts.length, value: s.saving.ci.low, unit: 'ms' }, { ...base, topic: 'prefix_saving', metric: 'start_ms', statistic: 'diff_ci95_high', n: s.starts.length, value: s.saving.ci.high, unit: 'ms' });
    }
    if (s.fork) {
      for (const [phase, values] of Object.entries(s.fork)) if (values.length > 0) rows.push({ ...base, topic: 'fork_phases', metric: `fork_${phase}_ms`, statistic: 'P50', n: values.length, value: median(values), unit: 'ms' });
    }
    if (s.rewardParity) rows.push({ ...base, topic: 'reward_parity', metric: 'reward_agree', statistic: 'proportion', n: s.rewardParity.compared, value: s.rewardParity.compared > 0 ? s.rewardParity.agree / s.rewardParity.compared : null, unit: 'fraction', limitations: `${LIMITS}; matched attempts (block, step, slot, member) against fresh` });
    if (s.pool && s.pool.claims > 0) rows.push({ ...base, topic: 'warm_pool', metric: 'pool_hit_rate', statistic: 'proportion', n: s.pool.claims, value: s.pool.hits / s.pool.claims, unit: 'fraction' });
    if (s.trainerWaits.length > 0) rows.push({ ...base, topic: 'async_trainer', metric: 'trainer_wait_ms', statistic: 'P50', n: s.trainerWaits.length, value: median(s.trainerWaits), unit: 'ms' });
    if (s.staleness.length > 0) rows.push({ ...base, topic: 'async_trainer', metric: 'staleness', statistic: 'mean', n: s.staleness.length, value: mean(s.staleness), unit: 'steps' });
    if (s.validity) rows.push(...validityEvidence(s.validity, base));
  }
  return rows;
}

/** The valid-sample rate [Wilson] and retries per valid sample [bootstrap] of one cell (topic valid_samples). */
function validityEvidence(v: StepValidity, base: Omit<EvidenceRow, 'topic' | 'metric' | 'statistic' | 'n' | 'value' | 'unit'>): EvidenceRow[] {
  const c = v.cost;
  const row = { ...base, topic: 'valid_samples', limitations: `${LIMITS}; ${c.valid} valid of ${c.attempts} attempts (${c.tries} tries); retries ${c.controls.retriesMax}, faults kill ${c.controls.kill} model ${c.controls.modelError}` };
  const rows: EvidenceRow[] = [];
  const push = (metric: string, unit: string, n: number, value: number | null, interval: { low: number; high: number } | null, statistic: string) => {
    if (value === null) return;
    rows.push({ ...row, metric, statistic, n, value, unit });
    if (interval) rows.push({ ...row, metric, statistic: 'ci95_low', n, value: interval.low, unit }, { ...row, metric, statistic: 'ci95_high', n, value: interval.high, unit });
  };
  push('valid_sample_rate', 'fraction', c.attempts, c.validRate.value, c.validRate.ci, 'proportion');
  push('retries_per_valid_sample', 'retries', c.attempts, c.retriesPerValid, v.retriesPerValidCi, 'ratio_of_sums');
  return rows;
}

/** The rollout_step section's controls, for rollout-cost.csv's columns (resolved-spec.json keeps the section parsed). */
const costControls = (spec: AnalysisInput['resolved']['spec']): CostControls => (spec as unknown as { rollout_step?: CostControls }).rollout_step ?? {};

export function rolloutStepExtension(input: AnalysisInput): KindExtensionOutput {
  const spec = input.resolved.spec;
  const runId = input.resolved.run_id;
  const summaries = summarizeStepCells(input.records, spec.resamples, runId, costControls(spec));
  const costs = summaries.map((s) => s.validity?.cost).filter(defined);
  return {
    files: new Map([
      [ROLLOUT_STEP_FILE, toCsv(ROLLOUT_STEP_HEADER, summaries.map(csvRow))],
      [ROLLOUT_COST_FILE, toCsv(ROLLOUT_COST_HEADER, costRows(costs))],
    ]),
    evidence: [...evidenceRows(summaries, runId, conditionOf(spec)), ...costEvidence(costs, { scenario: SCENARIO, cohort: runId, condition: conditionOf(spec), limits: LIMITS })],
    tables: [stepTable(summaries), costTable(costs)],
    charts: [stepChart(summaries)],
  };
}

/**
 * Step metrics are one value per step: `cell` unit with the step as the cell run. The rollout
 * record's `cell_*` figures are one value per cell run, a coarser unit than the step this kind's
 * cellRunOf names, so they are declared per `run` (described, never a sample). The reward is a score.
 */
export function rolloutStepMetricDesign(name: string): MetricDesign {
  if (STEP_METRICS.has(name)) return { unit: 'cell', scale: 'continuous' };
  if (name.startsWith('cell_')) return { unit: 'run', scale: 'continuous' };
  if (name === 'reward') return { unit: 'attempt', scale: 'score' };
  return { unit: 'attempt', scale: 'continuous' };
}

/** "staged warm-pool K=8": each arm × prefix × K is its own group. */
export function stepGroupLabel(record: TrialRecord): string {
  return `${armLabel(record.arm)} ${String(record.facts.prefix ?? '?')} K=${String(record.facts.group_size ?? '?')}`;
}

export const rolloutStepKindAnalysis: KindAnalysis = {
  scenario: SCENARIO,
  topic: 'rl_step',
  primaryMetrics: ['step_ms', 'start_ms', 'wall_ms'],
  metricDesign: rolloutStepMetricDesign,
  cellRunOf: (record) => String(record.facts.step_run ?? record.block),
  // Step s, slot b, member m is the same task and path in every cell of a block (rollout-step-plan.ts groupAssignment).
  pairOf: (record) => `${record.block}|${String(record.facts.step)}|${String(record.facts.group_slot)}|${String(record.facts.group_member)}`,
  groupOf: (record: TrialRecord): ArmRef => ({ backend: record.arm.backend, variant: record.arm.variant, label: stepGroupLabel(record) }),
  specArms: () => [],
  files: [ROLLOUT_STEP_FILE, ROLLOUT_COST_FILE],
  extension: rolloutStepExtension,
};
