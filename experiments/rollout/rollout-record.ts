/**
 * One attempt's journal record: every input (task, attempt, path, image digest, workspace commit,
 * agent and version, policy, budget, seed, model script id, evaluator version, scoring backend) in
 * facts; the phases, reward, candidate bytes, memory (memory_peak_bytes with facts.memory_method and
 * memory_covers: harness/controls/memory-method.ts), optional PSS and the cell's own figures (wall, budget peak,
 * utilization, harness CPU/RSS) in metrics. A failed attempt keeps its category and no reward.
 */
import { availableParallelism } from 'node:os';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import type { CellAttemptOutcome, CellResult } from './rollout-cell.ts';
import type { RolloutArm } from './rollout-arms.ts';
import type { ModelCapacity, RolloutSpec } from './rollout-spec.ts';
import { triesFacts, triesMetrics } from './attempt-tries.ts';
import type { RewardLookup } from './reward-cache.ts';
import { scheduleRecordFields, type CellSchedule } from './attempt-start.ts';

export interface RolloutRecordInput {
  base: TrialRecord;
  outcome: CellAttemptOutcome;
  cell: CellResult;
  cellLabel: string;
  cellRun: string;
  concurrency: number;
  capacity: ModelCapacity;
  arm: RolloutArm;
  armLabel: string;
  options: RolloutSpec;
  image: string;
  scriptId: string;
  scriptIds: string[];
  scoringBackend: string;
  attemptsInRun: number;
  /** The cell's arrival mode and admission cap (absent: the closed loop without a cap). */
  schedule?: CellSchedule;
}

/**
 * The control arm's verdict: the oracle applies the gold solution, so anything but reward 1 is the
 * substrate's failure (the task was proved solvable before the run), named with what went wrong.
 */
function oracleSubstrateFailure(input: RolloutRecordInput, ok: boolean): string | null {
  if (!input.arm.oracle) return null;
  const result = input.outcome.result;
  if (ok && result.score!.reward === 1) return null;
  const what = ok ? `reward ${result.score!.reward} (tests not passing: ${result.score!.failed.join(', ')})` : `no score (${input.outcome.category ?? 'harness_error'}: ${input.outcome.notes.slice(0, 2).join('; ')})`;
  return `substrate failure: the oracle (gold solution) got ${what} on ${input.armLabel} (scored on ${input.options.scoring_backend})`;
}

export function rolloutRecord(input: RolloutRecordInput): TrialRecord {
  const { outcome, cell } = input;
  const result = outcome.result;
  const task = outcome.attempt.task;
  const ok = outcome.category === null && result.outcome === 'ok' && result.score !== null;
  const substrateFailure = oracleSubstrateFailure(input, ok);
  const metrics: Record<string, number> = { ...outcome.phases };
  metrics.model_queue_ms = outcome.traffic.queueMs;
  metrics.model_service_ms = outcome.traffic.serviceMs;
  metrics.model_configured_service_ms = outcome.traffic.configuredServiceMs;
  metrics.model_requests = outcome.traffic.generations;
  if (ok) metrics.reward = result.score!.reward;
  if (result.candidate) {
    metrics.candidate_bytes = result.candidate.bytes;
    metrics.candidate_files = result.candidate.files;
    metrics.candidate_new_store_bytes = result.candidate.new_bytes;
  }
  if (result.trajectory) metrics.trajectory_bytes = result.trajectory.bytes;
  if (result.trajectory?.messages != null) metrics.trajectory_messages = result.trajectory.messages;
  if (result.memory?.bytes != null) metrics.memory_peak_bytes = result.memory.bytes;
  if (result.pssPeakKiB !== null) metrics.pss_peak_kib = result.pssPeakKiB;
  if (result.pss?.launchedPeakKiB != null) metrics.pss_launched_peak_kib = result.pss.launchedPeakKiB;
  if (result.pss?.containerPeakKiB != null) metrics.pss_container_peak_kib = result.pss.containerPeakKiB;
  if (result.pss) metrics.pss_sampler_cpu_ms = result.pss.samplerCpuMs;
  if (result.scoring) metrics.scoring_sandbox_ms = result.scoring.ms;
  metrics.cell_wall_ms = cell.wallMs;
  metrics.cell_attempts = input.attemptsInRun;
  metrics.cell_harness_cpu_ms = cell.harnessCpuMs;
  metrics.cell_harness_cpu_user_ms = cell.harnessCpuUserMs;
  metrics.cell_harness_cpu_system_ms = cell.harnessCpuSystemMs;
  metrics.cell_harness_helper_cpu_ms = cell.harnessHelperCpuMs;
  metrics.cell_harness_rss_peak_bytes = cell.harnessRssPeakBytes;
  metrics.cell_process_index = cell.processCellIndex;
  // The machine's CPUs while the cell ran: harness CPU ÷ (wall × these) is the harness's share of the machine (issue 33).
  metrics.cell_machine_cpus = availableParallelism();
  metrics.cell_busy_slot_ms = cell.busySlotMs;
  if (cell.utilization !== null) metrics.cell_utilization = cell.utilization;
  if (cell.utilizationWall !== null) metrics.cell_utilization_wall = cell.utilizationWall;
  if (cell.modelSpanMs !== null) metrics.cell_model_span_ms = cell.modelSpanMs;
  if (cell.peak) metrics.cell_budget_peak_bytes = cell.peak.peakBytes;
  metrics.attempt_start_offset_ms = Number(result.stamps.start - cell.tStartNs) / 1e6;
  metrics.attempt_end_offset_ms = Number(result.stamps.end - cell.tStartNs) / 1e6;
  // Retries, injected faults and every try's own cost (attempt-tries.ts); what reward dedup saved (reward-cache.ts).
  if (outcome.tries) Object.assign(metrics, triesMetrics(outcome.tries));
  const rewardLookup = result.facts.reward_cache as RewardLookup | undefined;
  if (rewardLookup?.hit) metrics.scoring_saved_ms = rewardLookup.saved_ms;
  const schedule = scheduleRecordFields(outcome.schedule, cell.starts, input.schedule);
  Object.assign(metrics, schedule.metrics);
  return {
    ...input.base,
    outcome: ok ? 'ok' : 'failed',
    failure_category: ok ? null : outcome.category ?? 'harness_error',
    exit_code: result.exit?.exitCode ?? null,
    t_spawn_ns: result.stamps.launched?.toString() ?? null,
    ready_ms: outcome.phases.ready_ms,
    result_ms: null,
    completion_ms: outcome.phases.wall_ms,
    metrics,
    validity: {
      scored: result.score !== null ? 'pass' : 'fail',
      baseline_unchanged: cell.baselineUnchanged ? 'pass' : 'fail',
      no_oom_in_budget: outcome.oomKillsDuring === 0 ? 'pass' : 'fail',
    },
    notes: substrateFailure ? [...outcome.notes, substrateFailure] : outcome.notes,
    facts: {
      arm_label: input.armLabel,
      oracle: input.arm.oracle,
      substrate_failure: substrateFailure,
      cell: input.cellLabel,
      cell_run: input.cellRun,
      worker: outcome.worker,
      concurrency: input.concurrency,
      ...schedule.facts,
      model_slots: input.capacity.slots,
      model_base_ms: input.capacity.base_ms,
      model_per_token_ms: input.capacity.per_token_ms,
      task_id: task.id,
      task_source: task.source,
      attempt_id: outcome.attempt.attemptId,
      attempt_index: outcome.attempt.index,
      attempt_path: outcome.attempt.path,
      model_script_id: input.scriptId,
      model_script_task: task.scriptTaskId(outcome.attempt.path),
      model_script_sources: input.scriptIds,
      image_digest: input.image,
      workspace_commit: task.baseCommit,
      agent: input.arm.agentName,
      agent_version: input.arm.cli?.version ?? 'builtin',
      fault: input.arm.fault,
      vm_cpu_model: input.arm.cpuModel,
      evaluator_version: task.evaluator.version,
      scoring_backend: input.scoringBackend,
      retain_policy: input.options.retain,
      budget: { cpus: input.options.budget_cpus, memory_mib: input.options.budget_memory, swap: 0, error: cell.budgetError },
      reward: ok ? result.score!.reward : null,
      tests_passed: result.score?.passed ?? null,
      tests_failed: result.score?.failed ?? null,
      grade: result.score?.grade ?? null,
      candidate: result.candidate,
      trajectory: result.trajectory,
      scoring: result.scoring,
      model_failures: outcome.traffic.failures,
      oom_kills_during: outcome.oomKillsDuring,
      load_average_1m: cell.loadAverage,
      tries: outcome.tries ? triesFacts(outcome.tries) : null,
      retry_policy: input.options.retries,
      fault_plan: input.options.faults ?? null,
      memory_method: result.memory?.method ?? 'none',
      memory_covers: result.memory?.covers ?? 'the sandbox never launched',
      memory_cgroup_file: result.memory?.file ?? null,
      pss_samples: result.pssSamples,
      pss_scope: result.pss?.scope ?? null,
      pss_method: result.pss?.method ?? null,
      pss_reads: result.pss ? { smaps_rollup: result.pss.reads, reused: result.pss.reuses } : null,
      ...result.facts,
    },
  };
}

/** Where a cell sits, as the plan placed it: the arm, the cell and its run, C, the model capacity and the schedule. */
export interface CellCoordinates {
  armLabel: string;
  cellLabel: string;
  cellRun: string;
  concurrency: number;
  capacity: ModelCapacity;
  arrival: string;
  admissionCap: number | 'none';
}

/** The coordinate facts every rollout record carries, whether or not its attempt ran: the analysis groups and labels cells by them. */
export function cellCoordinateFacts(coordinates: CellCoordinates): Record<string, unknown> {
  return {
    arm_label: coordinates.armLabel,
    cell: coordinates.cellLabel,
    cell_run: coordinates.cellRun,
    concurrency: coordinates.concurrency,
    arrival: coordinates.arrival,
    admission_cap: coordinates.admissionCap,
    model_slots: coordinates.capacity.slots,
    model_base_ms: coordinates.capacity.base_ms,
    model_per_token_ms: coordinates.capacity.per_token_ms,
  };
}

/**
 * An attempt of a cell that failed as a whole (its model service or budget could not start, or it
 * never produced this attempt): no metric, a harness_error with the reason, and the planned
 * coordinates — a bare record made the report label the cell `C=undefined` and print NaN.
 */
export function cellFailedRecord(base: TrialRecord, coordinates: CellCoordinates, attemptIndex: number, reason: string): TrialRecord {
  return {
    ...base,
    outcome: 'failed',
    failure_category: 'harness_error',
    notes: [`harness error: ${reason}`],
    facts: { ...cellCoordinateFacts(coordinates), attempt_index: attemptIndex, reward: null },
  };
}

export interface TaskInvalidRecordInput {
  base: TrialRecord;
  attempt: CellAttemptOutcome['attempt'];
  coordinates: CellCoordinates;
  scoringBackend: string;
  /** The pre-pass's reasons the task is not solvable. */
  reasons: readonly string[];
}

/**
 * An attempt on a task the solvability pre-pass proved broken (`rollout.invalid_tasks: record`):
 * never run, so no metric at all (nothing enters timing or reward statistics), but journaled with
 * its cell coordinates so it stays in the planned denominator as an infrastructure failure.
 */
export function taskInvalidRecord(input: TaskInvalidRecordInput): TrialRecord {
  const task = input.attempt.task;
  return {
    ...input.base,
    outcome: 'failed',
    failure_category: 'task_invalid',
    notes: [`task ${task.id} is not solvable as written (solvability pre-pass): ${input.reasons.join('; ')}`],
    facts: {
      ...cellCoordinateFacts(input.coordinates),
      task_id: task.id,
      task_source: task.source,
      attempt_id: input.attempt.attemptId,
      attempt_index: input.attempt.index,
      attempt_path: input.attempt.path,
      workspace_commit: task.baseCommit,
      evaluator_version: task.evaluator.version,
      scoring_backend: input.scoringBackend,
      reward: null,
      task_invalid_reasons: input.reasons,
    },
  };
}
