/**
 * The rollout kind's analysis, PURE (records → rollout-summary.csv, rollout-scores.csv, rollout-cost.csv (sample-cost.ts),
 * rollout-reward-deltas.csv, evidence rows, tables, charts). Every planned attempt stays in its
 * cell's denominator; only completed (scored) attempts enter timing, phase and reward figures.
 *
 * rollout-summary.csv, one row per cell (arm × C × model capacity, pooled over blocks):
 *   cell, arm, backend, agent, fault, concurrency, slots, base_ms, per_token_ms — the cell; arm is
 *     the arm's own label (two podman arms with different runtimes are two arms), the rest its coordinates
 *   planned, completed, failed, failures — attempts; failures as category=count;count
 *   throughput_rps, throughput_ci95_low, throughput_ci95_high — completed ÷ cell wall; percentile
 *     bootstrap over equal time windows of each cell run (resamples from the spec)
 *   steady_throughput_rps — completed ÷ model span (the cell's first model request → its last reply),
 *     pooled over runs: the loop's rate without the finite run's substrate-only ramp-up (before any
 *     request) and drain (the last candidates' scoring); what the ceiling bounds
 *   ceiling_rps — slots ÷ mean configured model service time per completed rollout
 *   latency_p50_ms, latency_p95_ms (n ≥ 30), latency_p99_ms (n ≥ 100) — rollout wall
 *   prepare_ms, ready_ms, model_ms, tool_ms, evaluation_ms, drop_ms, wall_ms — phase means (sum = wall)
 *   substrate_ms — mean wall − model; queue_wait_ms — mean model queue wait per rollout
 *   utilization — busy slot-time ÷ (slots × model span: the cell's first model request → its last
 *     reply), pooled over the cell's runs; utilization_wall — the same over the whole cell wall
 *     (ramp-up and drain included); bottleneck (rollout-phases.ts bottleneckOf)
 *   candidate_bytes_mean, store_new_bytes — candidate size and what retaining added to the store
 *   budget_peak_bytes (max over runs), pss_peak_kib_p50 (per rollout), harness_rss_peak_bytes
 *   memory_peak_bytes_p50, memory_peak_bytes_max, memory_n, memory_method, memory_note — memory per
 *     rollout: each completed attempt's own cgroup peak (rollout-memory.ts), pooled only when every
 *     attempt was measured the same way; the note says why a cell has no figure or what it leaves out
 *   pss_scope — which processes pss_peak_kib_p50 covers (the launched tree, plus a container's
 *     supervisor and init tree; a VM's is its qemu process tree); distinct scopes joined by " | "
 *   pss_sampler_cpu_ms_per_rollout — the harness CPU the PSS sampling itself took per attempt (it is
 *     inside harness_cpu_ms_per_rollout: smaps_rollup walks page tables, ~2 ms per 100 MiB resident)
 *   trajectories_parsed — attempts whose native trajectory (the built-in agent's, or an agent CLI's
 *     own session file) was stored and parsed with sandbench's replay parser for its format
 *   harness_cpu_ms_per_rollout (+ _user, _system) — the harness's CPU over the cell ÷ attempts: its
 *     own process (process.cpuUsage, every thread: executors' bookkeeping, the spawn requests, the
 *     diffs) plus the native launcher co-process's own utime + stime; harness_cpu_helpers_ms_per_rollout
 *     is the launcher's share. Not included: the commands the launcher runs (the sandboxes, the
 *     agents, the workspace copies and removals: the rollouts' own work) and the model service (the
 *     capacity under test); empty on records from before the launcher was counted. A process's first
 *     rollout cell also pays V8's compilation of the per-attempt path (records: cell_process_index 0):
 *     the evidence row of such a summary says so, since the plan's order decides which arm pays it,
 *     and names rollout.warmup_blocks, which runs every cell once before the measured ones
 *   harness_cpu_machine_fraction — that CPU ÷ (cell wall × the machine's CPUs): the share of the whole
 *     machine the harness took (a reader sees whether the harness could have been the bottleneck);
 *     empty on records from before cell_machine_cpus was recorded
 *   reward_mean, reward_ci95_low, reward_ci95_high — over completed attempts: the success rate with
 *     Wilson's interval when every reward is 0/1, else the mean with a percentile bootstrap
 *   cell_wall_ms, load_1m_start, load_1m_end
 */
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import type { AnalysisInput, KindAnalysis, KindChart, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { createPrng, seedFromString } from '../../harness/plan/prng.ts';
import { comparePairedScores, isBinary, quantile, wilsonInterval, type PairedScoreComparison } from '../../harness/stats/index.ts';
import type { MetricDesign } from '../../harness/analyze/metric-design.ts';
import { bottleneckOf, type Bottleneck } from './rollout-phases.ts';
import { cellMemory, memoryText, type CellMemory } from './rollout-memory.ts';
import { rolloutLead } from './rollout-lead.ts';
import { costChart, costEvidence, costRows, costTable, ROLLOUT_COST_FILE, ROLLOUT_COST_HEADER, summarizeCosts } from './sample-cost.ts';

export const ROLLOUT_SUMMARY_FILE = 'rollout-summary.csv';
export const ROLLOUT_SCORES_FILE = 'rollout-scores.csv';
export const ROLLOUT_DELTAS_FILE = 'rollout-reward-deltas.csv';

export const ROLLOUT_SUMMARY_HEADER = [
  'cell', 'arm', 'backend', 'agent', 'fault', 'concurrency', 'slots', 'base_ms', 'per_token_ms',
  'planned', 'completed', 'failed', 'failures',
  'throughput_rps', 'throughput_ci95_low', 'throughput_ci95_high', 'steady_throughput_rps', 'ceiling_rps',
  'latency_p50_ms', 'latency_p95_ms', 'latency_p99_ms',
  'prepare_ms', 'ready_ms', 'model_ms', 'tool_ms', 'evaluation_ms', 'drop_ms', 'wall_ms',
  'substrate_ms', 'queue_wait_ms', 'utilization', 'utilization_wall', 'bottleneck',
  'candidate_bytes_mean', 'store_new_bytes', 'budget_peak_bytes', 'memory_peak_bytes_p50', 'memory_peak_bytes_max', 'memory_n', 'memory_method', 'memory_note', 'pss_peak_kib_p50', 'pss_scope', 'pss_sampler_cpu_ms_per_rollout', 'trajectories_parsed', 'harness_rss_peak_bytes',
  'harness_cpu_ms_per_rollout', 'harness_cpu_user_ms_per_rollout', 'harness_cpu_system_ms_per_rollout', 'harness_cpu_helpers_ms_per_rollout', 'harness_cpu_machine_fraction', 'reward_mean', 'reward_ci95_low', 'reward_ci95_high',
  'cell_wall_ms', 'load_1m_start', 'load_1m_end',
] as const;
/** The execution contract's minimal evaluator record, plus the cell and outcome for joins. */
export const ROLLOUT_SCORES_HEADER = ['task_id', 'attempt_id', 'reward', 'evaluator_version', 'bundle', 'cell', 'outcome', 'failure_category'] as const;
/**
 * rollout-reward-deltas.csv, one row per arm against the first arm, over the attempts both completed
 * (attempt k is the same task and path in every arm): reward_delta is the paired difference in
 * success rate when every reward is 0/1 (95% CI Newcombe 1998 method 10, mcnemar_p McNemar's exact
 * test on the discordant pairs), else the paired difference of mean rewards (percentile bootstrap
 * over pairs, signed-rank p in test_p); harness/stats paired-score.ts.
 */
export const ROLLOUT_DELTAS_HEADER = [
  'candidate', 'control', 'pairs', 'reward_delta', 'ci95_low', 'ci95_high', 'excludes_zero',
  'design', 'candidate_mean', 'control_mean', 'candidate_only', 'control_only', 'mcnemar_p', 'test_p', 'conclusion', 'method',
] as const;

export const PHASES = ['prepare_ms', 'ready_ms', 'model_ms', 'tool_ms', 'evaluation_ms', 'drop_ms'] as const;
const SCENARIO = 'rollout_cost';
const LIMITS = 'closed loop of C workers in one shared budget; scripted deterministic model service at fixed capacity; built-in task set rewards are binary';

const mean = (values: readonly number[]) => (values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length);
const metric = (record: TrialRecord, name: string) => record.metrics[name];
const values = (records: readonly TrialRecord[], name: string) => records.map((r) => metric(r, name)).filter((v): v is number => typeof v === 'number');

/** Percentile bootstrap of a statistic over resampled items (seeded, so reruns are byte-identical). */
export function bootstrapCi<T>(items: readonly T[], statistic: (sample: readonly T[]) => number | null, resamples: number, seedId: string): { low: number; high: number } | null {
  if (items.length < 2) return null;
  const prng = createPrng(seedFromString(seedId));
  const estimates: number[] = [];
  const sample: T[] = new Array(items.length);
  for (let r = 0; r < resamples; r++) {
    for (let i = 0; i < items.length; i++) sample[i] = items[prng.int(0, items.length - 1)]!;
    const value = statistic(sample);
    if (value !== null && Number.isFinite(value)) estimates.push(value);
  }
  if (estimates.length === 0) return null;
  return { low: quantile(estimates, 0.025), high: quantile(estimates, 0.975) };
}

/**
 * A cell's reward interval: Wilson's for a success rate (0/1 rewards; a bootstrap of 8 successes out
 * of 8 would be the point [1, 1]), else the percentile bootstrap of the mean.
 */
export function rewardInterval(rewards: readonly number[], resamples: number, seedId: string): { low: number; high: number } | null {
  if (rewards.length === 0) return null;
  if (isBinary(rewards)) return wilsonInterval(rewards.filter((r) => r === 1).length, rewards.length);
  return bootstrapCi(rewards, mean, resamples, seedId);
}

export interface Window {
  count: number;
  widthMs: number;
}

/** Equal time windows over one cell run: completions (end offsets) counted per window. */
export function timeWindows(endOffsetsMs: readonly number[], wallMs: number, k: number): Window[] {
  if (wallMs <= 0 || k < 1) return [];
  const width = wallMs / k;
  const counts = new Array<number>(k).fill(0);
  for (const end of endOffsetsMs) counts[Math.min(k - 1, Math.max(0, Math.floor(end / width)))]! += 1;
  return counts.map((count) => ({ count, widthMs: width }));
}

const windowRate = (windows: readonly Window[]) => {
  const width = windows.reduce((s, w) => s + w.widthMs, 0);
  return width > 0 ? (windows.reduce((s, w) => s + w.count, 0) * 1000) / width : null;
};

export interface CellSummary {
  cell: string;
  /** The arm's own label (harness/spec/arm-label.ts); the cell's coordinates are the columns after it. */
  arm: string;
  backend: string;
  agent: string;
  fault: string | null;
  concurrency: number;
  slots: number;
  baseMs: number;
  perTokenMs: number;
  planned: number;
  completed: number;
  failed: number;
  failures: string;
  /** Why the cell has no figures (no attempt completed): its failure categories and the first distinct notes; null once one completed. */
  noDataReason: string | null;
  throughput: number | null;
  throughputCi: { low: number; high: number } | null;
  steadyThroughput: number | null;
  ceiling: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  phases: Record<(typeof PHASES)[number] | 'wall_ms' | 'substrate_ms' | 'model_queue_ms', number | null>;
  utilization: number | null;
  utilizationWall: number | null;
  bottleneck: Bottleneck | null;
  candidateBytes: number | null;
  storeNewBytes: number;
  budgetPeakBytes: number | null;
  memory: CellMemory;
  pssP50: number | null;
  pssScope: string | null;
  pssSamplerCpuPerRollout: number | null;
  trajectoriesParsed: number;
  harnessRss: number | null;
  harnessCpuPerRollout: number | null;
  /** Cell runs of this summary that were their process's first rollout cell (JIT warm-up inside their harness CPU); null when the records predate the field. */
  harnessColdCells: number | null;
  harnessCpuUserPerRollout: number | null;
  harnessCpuSystemPerRollout: number | null;
  harnessCpuHelpersPerRollout: number | null;
  /** Harness CPU ÷ (cell wall × machine CPUs), over the cell's runs; null when a run lacks cell_machine_cpus. */
  harnessCpuMachineFraction: number | null;
  reward: number | null;
  rewardCi: { low: number; high: number } | null;
  cellWallMs: number;
  load: [number | null, number | null];
}

/**
 * The harness CPU of a process's first rollout cell includes V8 compiling the per-attempt path, and
 * which arm's cell runs first is the plan's order: said beside the figure, so a reader does not
 * charge the warm-up to that arm (docs/harness-scale.md, fifth round).
 */
function coldCellNote(coldCells: number | null): string {
  if (!coldCells) return '';
  const which = coldCells === 1 ? "the process's first rollout cell, which carries" : `${coldCells} first rollout cells of their processes, which carry`;
  return `; harness CPU includes ${which} V8's warm-up of the rollout path (rollout.warmup_blocks: 1 runs every cell once first, unmeasured)`;
}

/** The fields of the spec's rollout section that analysis reads. */
type RecordedRollout = { budget_cpus?: string; warmup_blocks?: number } & Parameters<typeof summarizeCosts>[1];

/** The spec's rollout section as the bundle recorded it: no defaults applied, so bundles from before a field analyse as they did. */
function recordedRollout(spec: AnalysisInput['resolved']['spec']): RecordedRollout {
  return (spec as unknown as { rollout?: RecordedRollout }).rollout ?? {};
}

/**
 * "; N warm-up block(s) (excluded)" for the evidence condition of a run that had warm-up blocks;
 * empty otherwise, so bundles from before the field analyse as they did.
 */
export function warmupCondition(spec: AnalysisInput['resolved']['spec']): string {
  const blocks = recordedRollout(spec).warmup_blocks;
  return blocks ? `; ${blocks} warm-up block${blocks === 1 ? '' : 's'} (excluded)` : '';
}

function counts(list: readonly string[]): string {
  const tally = new Map<string, number>();
  for (const value of list) tally.set(value, (tally.get(value) ?? 0) + 1);
  return [...tally.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `${key}=${count}`).join(';');
}

function cellOf(record: TrialRecord): string {
  return String(record.facts.cell ?? record.trial_id);
}

/** A failed cell's reason, from what its records say: the categories, then up to two distinct notes (a whole cell failing repeats one). */
function noDataReason(records: readonly TrialRecord[]): string {
  const notes = [...new Set(records.flatMap((r) => r.notes.slice(0, 1)))];
  const shown = notes.slice(0, 2).join('; ');
  const more = notes.length > 2 ? ` (+${notes.length - 2} more in the journal)` : '';
  return `no attempt completed (${counts(records.map((r) => r.failure_category ?? 'none'))})${shown ? `: ${shown}${more}` : ''}`;
}

export function summarizeCells(records: readonly TrialRecord[], resamples: number, runId: string): CellSummary[] {
  const formal = records.filter((r) => !r.warmup);
  const cells = [...new Set(formal.map(cellOf))];
  return cells.map((cell) => {
    const all = formal.filter((r) => cellOf(r) === cell);
    const ok = all.filter((r) => r.outcome === 'ok');
    const first = all[0]!;
    const runs = new Map<string, TrialRecord[]>();
    for (const r of all) runs.set(String(r.facts.cell_run ?? r.block), [...(runs.get(String(r.facts.cell_run ?? r.block)) ?? []), r]);
    const windows: Window[] = [];
    let wallTotal = 0;
    let busyTotal = 0;
    let spanTotal = 0;
    let cpuTotal = 0;
    let cpuUser = 0;
    let cpuSystem = 0;
    let cpuHelpers: number | null = 0;
    let machineCpuMs: number | null = 0;
    let steadyCount = 0;
    let steadySpan = 0;
    let attemptsTotal = 0;
    let coldCells: number | null = 0;
    let peak: number | null = null;
    let rss: number | null = null;
    const loads: [number | null, number | null] = [null, null];
    for (const runRecords of runs.values()) {
      const wall = metric(runRecords[0]!, 'cell_wall_ms') ?? 0;
      const okEnds = runRecords.filter((r) => r.outcome === 'ok').map((r) => metric(r, 'attempt_end_offset_ms') ?? 0);
      windows.push(...timeWindows(okEnds, wall, Math.min(16, Math.max(2, Math.floor(okEnds.length / 4)))));
      steadyCount += okEnds.length;
      steadySpan += metric(runRecords[0]!, 'cell_model_span_ms') ?? 0;
      cpuUser += metric(runRecords[0]!, 'cell_harness_cpu_user_ms') ?? 0;
      cpuSystem += metric(runRecords[0]!, 'cell_harness_cpu_system_ms') ?? 0;
      const helpers = metric(runRecords[0]!, 'cell_harness_helper_cpu_ms');
      cpuHelpers = cpuHelpers === null || helpers === undefined ? null : cpuHelpers + helpers;
      const machineCpus = metric(runRecords[0]!, 'cell_machine_cpus');
      machineCpuMs = machineCpuMs === null || machineCpus === undefined ? null : machineCpuMs + wall * machineCpus;
      wallTotal += wall;
      busyTotal += metric(runRecords[0]!, 'cell_busy_slot_ms') ?? 0;
      spanTotal += metric(runRecords[0]!, 'cell_model_span_ms') ?? 0;
      cpuTotal += metric(runRecords[0]!, 'cell_harness_cpu_ms') ?? 0;
      attemptsTotal += metric(runRecords[0]!, 'cell_attempts') ?? runRecords.length;
      const processIndex = metric(runRecords[0]!, 'cell_process_index');
      coldCells = coldCells === null || processIndex === undefined ? null : coldCells + (processIndex === 0 ? 1 : 0);
      const p = metric(runRecords[0]!, 'cell_budget_peak_bytes');
      if (p !== undefined) peak = Math.max(peak ?? 0, p);
      const h = metric(runRecords[0]!, 'cell_harness_rss_peak_bytes');
      if (h !== undefined) rss = Math.max(rss ?? 0, h);
      const load = runRecords[0]!.facts.load_average_1m as [number, number] | undefined;
      if (load) [loads[0], loads[1]] = [loads[0] ?? load[0], load[1]];
    }
    const slots = Number(first.facts.model_slots);
    const walls = values(ok, 'wall_ms');
    const sorted = [...walls].sort((a, b) => a - b);
    const phase = (name: string) => mean(values(ok, name));
    const utilization = spanTotal > 0 ? busyTotal / (slots * spanTotal) : null;
    const utilizationWall = wallTotal > 0 ? busyTotal / (slots * wallTotal) : null;
    const meanQueue = phase('model_queue_ms');
    const meanSubstrate = phase('substrate_ms');
    const meanWall = phase('wall_ms');
    const configured = mean(values(ok, 'model_configured_service_ms'));
    const rewards = values(ok, 'reward');
    const throughput = wallTotal > 0 ? (ok.length * 1000) / wallTotal : null;
    return {
      cell,
      arm: String(first.facts.arm_label ?? armLabel(first.arm)),
      backend: first.arm.backend,
      agent: String(first.facts.agent ?? 'builtin'),
      fault: (first.facts.fault as string | null | undefined) ?? null,
      concurrency: Number(first.facts.concurrency),
      slots,
      baseMs: Number(first.facts.model_base_ms),
      perTokenMs: Number(first.facts.model_per_token_ms),
      planned: all.length,
      completed: ok.length,
      failed: all.length - ok.length,
      failures: counts(all.filter((r) => r.outcome !== 'ok').map((r) => r.failure_category ?? 'none')),
      noDataReason: ok.length > 0 ? null : noDataReason(all),
      throughput,
      throughputCi: bootstrapCi(windows, windowRate, resamples, `${runId}:throughput:${cell}`),
      steadyThroughput: steadySpan > 0 ? (steadyCount * 1000) / steadySpan : null,
      ceiling: configured && configured > 0 ? (slots * 1000) / configured : null,
      p50: sorted.length > 0 ? quantile(sorted, 0.5) : null,
      p95: sorted.length >= 30 ? quantile(sorted, 0.95) : null,
      p99: sorted.length >= 100 ? quantile(sorted, 0.99) : null,
      phases: {
        prepare_ms: phase('prepare_ms'), ready_ms: phase('ready_ms'), model_ms: phase('model_ms'), tool_ms: phase('tool_ms'),
        evaluation_ms: phase('evaluation_ms'), drop_ms: phase('drop_ms'), wall_ms: meanWall, substrate_ms: meanSubstrate, model_queue_ms: meanQueue,
      },
      utilization,
      utilizationWall,
      bottleneck: utilization !== null && meanQueue !== null && meanSubstrate !== null && meanWall !== null ? bottleneckOf(utilization, meanQueue, meanSubstrate, meanWall) : null,
      candidateBytes: mean(values(ok, 'candidate_bytes')),
      storeNewBytes: values(all, 'candidate_new_store_bytes').reduce((a, b) => a + b, 0),
      budgetPeakBytes: peak,
      memory: cellMemory(ok),
      pssP50: values(ok, 'pss_peak_kib').length > 0 ? quantile(values(ok, 'pss_peak_kib'), 0.5) : null,
      // Each scope with its method (process-tree-pss, or -partial where the sandbox is not the launched tree's): labelled, never mixed silently.
      pssScope: [...new Set(ok.filter((r) => typeof r.facts.pss_scope === 'string').map((r) => (r.facts.pss_method ? `${String(r.facts.pss_method)}: ${String(r.facts.pss_scope)}` : String(r.facts.pss_scope))))].sort().join(' | ') || null,
      pssSamplerCpuPerRollout: mean(values(all, 'pss_sampler_cpu_ms')),
      trajectoriesParsed: all.filter((r) => (r.facts.trajectory as { parsed?: unknown } | null | undefined)?.parsed === true).length,
      harnessRss: rss,
      harnessCpuPerRollout: attemptsTotal > 0 ? cpuTotal / attemptsTotal : null,
      harnessColdCells: coldCells,
      harnessCpuUserPerRollout: attemptsTotal > 0 ? cpuUser / attemptsTotal : null,
      harnessCpuSystemPerRollout: attemptsTotal > 0 ? cpuSystem / attemptsTotal : null,
      harnessCpuHelpersPerRollout: attemptsTotal > 0 && cpuHelpers !== null ? cpuHelpers / attemptsTotal : null,
      harnessCpuMachineFraction: machineCpuMs ? cpuTotal / machineCpuMs : null,
      reward: mean(rewards),
      rewardCi: rewardInterval(rewards, resamples, `${runId}:reward:${cell}`),
      cellWallMs: wallTotal,
      load: loads,
    };
  });
}

export interface RewardDelta {
  candidate: string;
  control: string;
  pairs: number;
  delta: number | null;
  ci: { low: number; high: number } | null;
  /** The paired comparison (null without a pair). */
  comparison: PairedScoreComparison | null;
}

/** Pairing key of an attempt across arms: same block, attempt index, C and capacity → same task and path. */
function pairKey(record: TrialRecord): string {
  const cell = String(record.facts.cell ?? '');
  const tail = cell.slice(String(record.facts.arm_label ?? '').length);
  return `${record.block}|${tail}|${String(record.facts.attempt_index)}`;
}

/**
 * Reward delta of every arm against the first arm, paired by attempt (both completed): the paired
 * difference in success rate with Newcombe's interval and McNemar's exact p for 0/1 rewards, the
 * paired difference of means with a bootstrap interval otherwise (harness/stats paired-score.ts).
 */
export function rewardDeltas(records: readonly TrialRecord[], armOrder: readonly string[], resamples: number, runId: string): RewardDelta[] {
  const ok = records.filter((r) => !r.warmup && r.outcome === 'ok' && typeof r.metrics.reward === 'number');
  const byArm = new Map<string, Map<string, number>>();
  for (const r of ok) {
    const arm = String(r.facts.arm_label);
    if (!byArm.has(arm)) byArm.set(arm, new Map());
    byArm.get(arm)!.set(pairKey(r), r.metrics.reward!);
  }
  const arms = armOrder.filter((a) => byArm.has(a));
  const control = arms[0];
  if (!control) return [];
  return arms.slice(1).map((candidate) => {
    const candidateRewards: number[] = [];
    const controlRewards: number[] = [];
    for (const [key, reward] of byArm.get(candidate)!) {
      const base = byArm.get(control)!.get(key);
      if (base === undefined) continue;
      candidateRewards.push(reward);
      controlRewards.push(base);
    }
    const comparison = candidateRewards.length === 0 ? null : comparePairedScores(candidateRewards, controlRewards, { resamples, seedId: `${runId}:reward-delta:${candidate}:${control}` });
    return { candidate, control, pairs: candidateRewards.length, delta: comparison?.difference ?? null, ci: comparison?.ci ?? null, comparison };
  });
}

const f = (value: number | null | undefined, digits = 1) => (value === null || value === undefined ? '–' : value.toFixed(digits));
const ci = (low: number | undefined, high: number | undefined, digits: number) => (low === undefined || high === undefined ? '' : ` [${low.toFixed(digits)}, ${high.toFixed(digits)}]`);

export function rolloutExtension(input: AnalysisInput): KindExtensionOutput {
  const spec = input.resolved.spec;
  const runId = input.resolved.run_id;
  const summaries = summarizeCells(input.records, spec.resamples, runId);
  const armOrder = spec.arms.map(armLabel);
  const deltas = rewardDeltas(input.records, armOrder, spec.resamples, runId);
  const summaryRows: Cell[][] = summaries.map((s) => [
    s.cell, s.arm, s.backend, s.agent, s.fault, s.concurrency, s.slots, s.baseMs, s.perTokenMs,
    s.planned, s.completed, s.failed, s.failures,
    s.throughput, s.throughputCi?.low, s.throughputCi?.high, s.steadyThroughput, s.ceiling,
    s.p50, s.p95, s.p99,
    s.phases.prepare_ms, s.phases.ready_ms, s.phases.model_ms, s.phases.tool_ms, s.phases.evaluation_ms, s.phases.drop_ms, s.phases.wall_ms,
    s.phases.substrate_ms, s.phases.model_queue_ms, s.utilization, s.utilizationWall, s.bottleneck,
    s.candidateBytes, s.storeNewBytes, s.budgetPeakBytes, s.memory.p50Bytes, s.memory.maxBytes, s.memory.n, s.memory.method, s.memory.note, s.pssP50, s.pssScope, s.pssSamplerCpuPerRollout, s.trajectoriesParsed, s.harnessRss,
    s.harnessCpuPerRollout, s.harnessCpuUserPerRollout, s.harnessCpuSystemPerRollout, s.harnessCpuHelpersPerRollout, s.harnessCpuMachineFraction, s.reward, s.rewardCi?.low, s.rewardCi?.high,
    s.cellWallMs, s.load[0], s.load[1],
  ]);
  const scoreRows: Cell[][] = input.records.filter((r) => !r.warmup).map((r) => [
    String(r.facts.task_id ?? ''), String(r.facts.attempt_id ?? r.trial_id), typeof r.metrics.reward === 'number' ? r.metrics.reward : null,
    String(r.facts.evaluator_version ?? ''), runId, cellOf(r), r.outcome, r.failure_category,
  ]);
  const deltaRows: Cell[][] = deltas.map((d) => {
    const c = d.comparison;
    const proportions = c?.design === 'paired proportions';
    return [
      d.candidate, d.control, d.pairs, d.delta, d.ci?.low, d.ci?.high, d.ci ? d.ci.low > 0 || d.ci.high < 0 : null,
      c?.design, c?.candidateMean, c?.controlMean, proportions ? c.table!.candidateOnly : null, proportions ? c.table!.controlOnly : null, proportions ? c.p : null, c?.p, c?.conclusion, c?.method,
    ];
  });

  const table: Table = {
    caption: 'Rollouts per cell: completed/s [95% CI] against the model ceiling, latency, substrate time, storage, memory, reward and bottleneck',
    header: ['cell', 'completed/planned', 'rollouts/s', 'steady', 'ceiling', 'P50/P95 ms', 'substrate ms', 'candidate B', 'memory/rollout (P50)', 'budget peak MiB', 'reward', 'bottleneck', 'harness CPU ms/rollout', 'failures'],
    rows: summaries.map((s) => [
      s.cell, `${s.completed}/${s.planned}`, `${f(s.throughput, 3)}${ci(s.throughputCi?.low, s.throughputCi?.high, 3)}`, f(s.steadyThroughput, 3), f(s.ceiling, 3),
      `${f(s.p50, 0)}/${f(s.p95, 0)}`, f(s.phases.substrate_ms, 0), f(s.candidateBytes, 0), memoryText(s.memory), s.budgetPeakBytes === null ? '–' : (s.budgetPeakBytes / 1048576).toFixed(0),
      `${f(s.reward, 2)}${ci(s.rewardCi?.low, s.rewardCi?.high, 2)}`, s.bottleneck ?? '–', f(s.harnessCpuPerRollout, 2), s.failures || '–',
    ]),
    footnote: 'throughput CI: percentile bootstrap over equal time windows; reward CI: Wilson (0/1 rewards) or percentile bootstrap over completed attempts; P95 only n ≥ 30, P99 only n ≥ 100',
  };
  const deltaTable: Table = {
    caption: 'Reward against the first arm, paired by attempt (completed attempts of both): difference in success rate (0/1 rewards) or in mean reward',
    header: ['candidate', 'control', 'pairs', 'success rate / mean: candidate vs control', 'delta [95% CI]', 'p', 'conclusion'],
    rows: deltas.map((d) => [
      d.candidate, d.control, String(d.pairs),
      d.comparison ? `${f(d.comparison.candidateMean, 3)} vs ${f(d.comparison.controlMean, 3)}` : '–',
      `${f(d.delta, 3)}${ci(d.ci?.low, d.ci?.high, 3)}`,
      d.comparison?.p == null ? '–' : `${d.comparison.design === 'paired proportions' ? 'McNemar' : 'signed-rank'} ${d.comparison.p.toPrecision(3)}`,
      d.comparison?.conclusion ?? '–',
    ]),
    footnote: '0/1 rewards: 95% CI Newcombe 1998 method 10, McNemar exact p on the discordant pairs; other rewards: paired bootstrap of the mean difference, signed-rank p; a verdict needs both and ≥ 6 pairs',
  };
  const charts: KindChart[] = [];
  const throughputPoints = summaries.filter((s) => s.throughput !== null).map((s) => ({ series: `${s.arm} model ${s.slots}×${s.baseMs}ms`, x: s.concurrency, y: s.throughput! }));
  const ceilingPoints = summaries.filter((s) => s.ceiling !== null).map((s) => ({ series: `ceiling s${s.slots}b${s.baseMs}`, x: s.concurrency, y: s.ceiling! }));
  const ceilings = new Map<string, { series: string; x: number; y: number }[]>();
  for (const p of ceilingPoints) ceilings.set(`${p.series}|${p.x}`, [p]);
  charts.push({ id: 'rollout-throughput', title: 'Completed rollouts/s against C per backend, with the model ceiling (slots ÷ service time)', x: { title: 'concurrency C', log: true }, y: { title: 'rollouts/s' }, points: [...throughputPoints, ...[...ceilings.values()].flat()] });
  // One stacked-bar chart per arm and capacity: at each C the mean phases of a completed rollout, stacked to its wall.
  const groups = new Map<string, CellSummary[]>();
  for (const s of summaries) {
    const key = `${s.arm} model ${s.slots}×${s.baseMs}ms${s.perTokenMs > 0 ? `+${s.perTokenMs}ms/token` : ''}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  let index = 0;
  for (const [key, group] of groups) {
    charts.push({
      id: `rollout-phases-${index++}`,
      title: `${key}: mean phase time per completed rollout (ms) against C`,
      x: { title: 'concurrency C' },
      y: { title: 'ms per rollout (stacked: prepare, ready, model, tool, evaluation, drop)' },
      mark: 'stacked-bar',
      points: group.flatMap((s) => PHASES.filter((p) => s.phases[p] !== null).map((p) => ({ series: p.replace('_ms', ''), x: s.concurrency, y: s.phases[p]! }))),
    });
  }

  const condition = `${conditionOf(spec)}; budget ${String(recordedRollout(spec).budget_cpus ?? '0-1')}${warmupCondition(spec)}`;
  const evidence: EvidenceRow[] = [];
  for (const s of summaries) {
    const base = { scenario: SCENARIO, source: EVIDENCE_SOURCE, cohort: runId, variant: s.cell, condition: `${condition}; C ${s.concurrency}; slots ${s.slots}; base ${s.baseMs} ms` };
    const limitations = `${LIMITS}; ${s.completed} completed of ${s.planned} planned${s.failures ? ` (${s.failures})` : ''}; bottleneck ${s.bottleneck ?? 'n/a'}`;
    evidence.push({ ...base, topic: 'rollout_throughput', metric: 'rollouts_per_s', statistic: 'mean_rate', n: s.completed, value: s.throughput, unit: 'rollouts/s', limitations });
    if (s.throughputCi) {
      evidence.push({ ...base, topic: 'rollout_throughput', metric: 'rollouts_per_s', statistic: 'ci95_low', n: s.completed, value: s.throughputCi.low, unit: 'rollouts/s', limitations });
      evidence.push({ ...base, topic: 'rollout_throughput', metric: 'rollouts_per_s', statistic: 'ci95_high', n: s.completed, value: s.throughputCi.high, unit: 'rollouts/s', limitations });
    }
    if (s.steadyThroughput !== null) evidence.push({ ...base, topic: 'rollout_throughput', metric: 'rollouts_per_s', statistic: 'steady_rate', n: s.completed, value: s.steadyThroughput, unit: 'rollouts/s', limitations });
    if (s.ceiling !== null) evidence.push({ ...base, topic: 'rollout_throughput', metric: 'model_ceiling_rollouts_per_s', statistic: 'configured', n: s.completed, value: s.ceiling, unit: 'rollouts/s', limitations });
    if (s.harnessCpuPerRollout !== null) evidence.push({ ...base, topic: 'rollout_throughput', metric: 'harness_cpu_ms_per_rollout', statistic: 'mean', n: s.planned, value: s.harnessCpuPerRollout, unit: 'ms', limitations: `${limitations}${coldCellNote(s.harnessColdCells)}` });
    evidence.push({ ...base, topic: 'rollout_latency', metric: 'wall_ms', statistic: 'P50', n: s.completed, value: s.p50, unit: 'ms', limitations });
    if (s.p95 !== null) evidence.push({ ...base, topic: 'rollout_latency', metric: 'wall_ms', statistic: 'P95_reference', n: s.completed, value: s.p95, unit: 'ms', limitations });
    evidence.push({ ...base, topic: 'rollout_latency', metric: 'substrate_ms', statistic: 'mean', n: s.completed, value: s.phases.substrate_ms, unit: 'ms', limitations });
    evidence.push({ ...base, topic: 'candidate_storage', metric: 'candidate_bytes', statistic: 'mean', n: s.completed, value: s.candidateBytes, unit: 'bytes', limitations });
    evidence.push({ ...base, topic: 'resident_memory', metric: 'budget_peak_bytes', statistic: 'max', n: s.planned, value: s.budgetPeakBytes, unit: 'bytes', limitations });
    evidence.push({ ...base, topic: 'resident_memory', metric: 'memory_peak_bytes', statistic: 'P50', n: s.memory.n, value: s.memory.p50Bytes, unit: 'bytes', limitations: `${limitations}; method ${s.memory.method}${s.memory.note ? ` (${s.memory.note})` : ''}` });
    evidence.push({ ...base, topic: 'resident_memory', metric: 'pss_peak_kib', statistic: 'P50', n: s.completed, value: s.pssP50, unit: 'KiB', limitations: s.pssScope ? `${limitations}; PSS covers ${s.pssScope}` : limitations });
    evidence.push({ ...base, topic: 'reward', metric: 'reward', statistic: 'mean', n: s.completed, value: s.reward, unit: 'reward', limitations });
    if (s.rewardCi) {
      evidence.push({ ...base, topic: 'reward', metric: 'reward', statistic: 'ci95_low', n: s.completed, value: s.rewardCi.low, unit: 'reward', limitations });
      evidence.push({ ...base, topic: 'reward', metric: 'reward', statistic: 'ci95_high', n: s.completed, value: s.rewardCi.high, unit: 'reward', limitations });
    }
  }
  // Cost of a valid sample, retries and reward dedup (sample-cost.ts, issue 31).
  const costs = summarizeCosts(input.records, recordedRollout(spec), spec.resamples, runId);
  evidence.push(...costEvidence(costs, { scenario: SCENARIO, cohort: runId, condition, limits: LIMITS }));
  for (const d of deltas) {
    const base = { scenario: SCENARIO, topic: 'reward', source: EVIDENCE_SOURCE, cohort: runId, variant: `${d.candidate} vs ${d.control}`, metric: 'reward_delta', unit: 'reward', condition, limitations: `${LIMITS}; paired by attempt over ${d.pairs} pairs` };
    evidence.push({ ...base, statistic: d.comparison?.design === 'paired proportions' ? 'diff_of_proportions' : 'diff_of_means', n: d.pairs, value: d.delta });
    if (d.ci) {
      evidence.push({ ...base, statistic: 'diff_ci95_low', n: d.pairs, value: d.ci.low });
      evidence.push({ ...base, statistic: 'diff_ci95_high', n: d.pairs, value: d.ci.high });
    }
  }
  return {
    files: new Map([
      [ROLLOUT_SUMMARY_FILE, toCsv(ROLLOUT_SUMMARY_HEADER, summaryRows)],
      [ROLLOUT_SCORES_FILE, toCsv(ROLLOUT_SCORES_HEADER, scoreRows)],
      [ROLLOUT_DELTAS_FILE, toCsv(ROLLOUT_DELTAS_HEADER, deltaRows)],
      [ROLLOUT_COST_FILE, toCsv(ROLLOUT_COST_HEADER, costRows(costs))],
    ]),
    evidence,
    lead: rolloutLead(summaries, deltas, armOrder),
    tables: [table, deltaTable, costTable(costs)],
    charts: [...charts, costChart(costs)],
  };
}

/**
 * What each recorded value stands for: rollout-record.ts writes the cell's own figures (wall, budget
 * peak, utilization, harness CPU/RSS) as `cell_*` once per cell run onto every attempt's record —
 * one value per cell run, never a sample of its copies; the reward is a score compared over
 * matched attempts; everything else is the attempt's own.
 */
export function rolloutMetricDesign(name: string): MetricDesign {
  if (name.startsWith('cell_')) return { unit: 'cell', scale: 'continuous' };
  if (name === 'reward') return { unit: 'attempt', scale: 'score' };
  return { unit: 'attempt', scale: 'continuous' };
}

/** "podman-crun C=4 model 2×20ms": the arm's own label, then the cell's concurrency and model capacity. */
export function cellGroupLabel(record: TrialRecord): string {
  const f = record.facts;
  const perToken = Number(f.model_per_token_ms ?? 0) > 0 ? `+${f.model_per_token_ms}ms/token` : '';
  return `${armLabel(record.arm)} C=${f.concurrency} model ${f.model_slots}×${f.model_base_ms}ms${perToken}`;
}

export const rolloutKindAnalysis: KindAnalysis = {
  scenario: SCENARIO,
  topic: 'rollout',
  primaryMetrics: ['wall_ms', 'substrate_ms', 'model_ms'],
  metricDesign: rolloutMetricDesign,
  cellRunOf: (record) => String(record.facts.cell_run ?? record.block),
  // Attempt k of a block is the same task and path in every cell and in every run of the spec's seed (rollout-plan.ts attemptAssignment).
  pairOf: (record) => `${record.block}|${String(record.facts.attempt_index ?? record.trial_id)}`,
  // Each cell is analysed as its own group, named by its arm's label and its coordinates in words (the CSVs also hold them as columns).
  groupOf: (record: TrialRecord): ArmRef => ({ backend: record.arm.backend, variant: record.arm.variant, label: cellGroupLabel(record) }),
  specArms: () => [],
  files: [ROLLOUT_SUMMARY_FILE, ROLLOUT_SCORES_FILE, ROLLOUT_DELTAS_FILE, ROLLOUT_COST_FILE],
  extension: rolloutExtension,
};
