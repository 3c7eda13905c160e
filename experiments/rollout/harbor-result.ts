/**
 * A rollout attempt in Harbor's shapes: its phases under Harbor's four names plus the teardown Harbor
 * does not record, and a `result.json` per attempt shaped like Harbor 0.25.0's TrialResult
 * (harbor/models/trial/result.py:75–102), written beside sandbench's journal as
 * `<bundle>/harbor-trials/<trial_id>/result.json` for attempts on Harbor tasks, with the attempt's
 * native trajectory as ATIF in `agent/trajectory.json` beside it (harbor-atif.ts).
 *
 * The mapping from sandbench's contiguous phases (rollout-phases.ts), which sum to the wall exactly:
 *   environment_setup  prepare + ready: workspace staged (the Dockerfile's COPY files), the sandbox
 *                      started and the agent started, up to its first model request. The sandbox and
 *                      the agent start in one launch, so agent_setup is not separable and is null.
 *   agent_execution    model + tool: first request → agent exit
 *   verifier           evaluation: collect, candidate, fresh scoring sandbox running tests/test.sh
 *   teardown           drop: retain/drop, sandbox and scratch removal (sandbench's own field)
 * `unattributed_ms` = wall − their sum, stated rather than assumed to be zero.
 *
 * Wall-clock instants are derived from the host monotonic clock, anchored at the cell's end (the
 * journal keeps monotonic offsets only); durations are exact, instants within the anchoring's ms.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import type { TaskSet } from './task-contract.ts';
import { ATIF_FILE, writeAtif, type StoredTrajectory } from './harbor-atif.ts';

export const HARBOR_TRIALS_DIR = 'harbor-trials';

export interface HarborPhasesMs {
  environment_setup_ms: number;
  agent_setup_ms: null;
  agent_execution_ms: number;
  verifier_ms: number;
  teardown_ms: number;
  unattributed_ms: number;
}

const metric = (record: TrialRecord, name: string): number => record.metrics[name] ?? 0;

/** Harbor's phases of one attempt from its record's metrics (PURE). */
export function harborPhases(record: TrialRecord): HarborPhasesMs {
  const environment = metric(record, 'prepare_ms') + metric(record, 'ready_ms');
  const execution = metric(record, 'model_ms') + metric(record, 'tool_ms');
  const verifier = metric(record, 'evaluation_ms');
  const teardown = metric(record, 'drop_ms');
  return {
    environment_setup_ms: environment,
    agent_setup_ms: null,
    agent_execution_ms: execution,
    verifier_ms: verifier,
    teardown_ms: teardown,
    unattributed_ms: metric(record, 'wall_ms') - (environment + execution + verifier + teardown),
  };
}

interface Timing {
  started_at: string;
  finished_at: string;
}

export interface HarborTrialContext {
  /** The task directory (a Harbor task's origin). */
  readonly taskDir: string;
  readonly taskName: string;
  readonly agentName: string;
  readonly backend: string;
  /** Epoch ms of the cell's start (Date.now() − the cell's wall when it ended). */
  readonly cellStartEpochMs: number;
  readonly resultDir: string;
}

/** A TrialResult-shaped object (PURE): Harbor's fields it can fill, `sandbench` for what Harbor does not record. */
export function harborTrialResult(record: TrialRecord, ctx: HarborTrialContext): Record<string, unknown> {
  const phases = harborPhases(record);
  const start = ctx.cellStartEpochMs + metric(record, 'attempt_start_offset_ms');
  const at = (ms: number) => new Date(start + ms).toISOString();
  let cursor = 0;
  const span = (ms: number): Timing => {
    const timing = { started_at: at(cursor), finished_at: at(cursor + ms) };
    cursor += ms;
    return timing;
  };
  const environment = span(phases.environment_setup_ms);
  const execution = span(phases.agent_execution_ms);
  const verifier = span(phases.verifier_ms);
  const teardown = span(phases.teardown_ms);
  const grade = (record.facts.grade ?? null) as { harbor_rewards?: Record<string, number> | null; note?: string | null } | null;
  const failed = record.outcome !== 'ok';
  return {
    task_name: ctx.taskName,
    trial_name: record.trial_id,
    trial_uri: pathToFileURL(ctx.resultDir).href,
    task_id: { path: ctx.taskDir },
    source: null,
    task_checksum: String(record.facts.evaluator_version ?? ''),
    config: {
      task: { path: ctx.taskDir },
      trial_name: record.trial_id,
      agent: { name: ctx.agentName },
      environment: { import_path: 'sandbench', kwargs: { backend: ctx.backend } },
    },
    agent_info: { name: ctx.agentName, version: String(record.facts.agent_version ?? 'builtin') },
    agent_result: null,
    verifier_result: grade?.harbor_rewards ? { rewards: grade.harbor_rewards } : null,
    exception_info: failed
      ? { exception_type: `sandbench.${record.failure_category ?? 'harness_error'}`, exception_message: record.notes.join('; '), exception_traceback: '', occurred_at: at(metric(record, 'wall_ms')) }
      : null,
    started_at: at(0),
    finished_at: at(metric(record, 'wall_ms')),
    environment_setup: environment,
    agent_setup: null,
    agent_execution: execution,
    verifier,
    sandbench: {
      run_id: record.run_id,
      arm: record.arm,
      reward: record.metrics.reward ?? null,
      outcome: record.outcome,
      failure_category: record.failure_category,
      verifier_note: grade?.note ?? null,
      teardown,
      phases_ms: phases,
      wall_ms: metric(record, 'wall_ms'),
      agent_setup: 'included in environment_setup: the sandbox and the agent start in one launch',
      memory_peak_bytes: record.metrics.memory_peak_bytes ?? null,
      memory_method: record.facts.memory_method ?? null,
      tool_ms: metric(record, 'tool_ms'),
      model_ms: metric(record, 'model_ms'),
      model_requests: metric(record, 'model_requests'),
      time_anchor: 'instants derived from the host monotonic clock, anchored at the cell end',
    },
  };
}

/** Writes result.json for each record of an attempt on a Harbor task (others are skipped). */
export function writeHarborResults(bundleDir: string, records: Iterable<TrialRecord>, taskDirs: ReadonlyMap<string, string>, cellStartEpochMs: number, agentName: string): void {
  for (const record of records) {
    const taskDir = taskDirs.get(String(record.facts.task_id));
    if (!taskDir) continue;
    const resultDir = join(bundleDir, HARBOR_TRIALS_DIR, record.trial_id);
    mkdirSync(resultDir, { recursive: true });
    const result = harborTrialResult(record, { taskDir, taskName: String(record.facts.task_id), agentName, backend: record.arm.backend, cellStartEpochMs, resultDir });
    // Its native trajectory as ATIF, where Harbor keeps an agent's (harbor-atif.ts); why not, when it cannot be.
    const stored = (record.facts.trajectory ?? null) as StoredTrajectory | null;
    const missing = writeAtif(bundleDir, resultDir, stored, { agentName, agentVersion: String(record.facts.agent_version ?? 'builtin') });
    Object.assign(result.sandbench as Record<string, unknown>, { atif_trajectory: missing === null ? ATIF_FILE : null, atif_note: missing });
    writeFileSync(join(resultDir, 'result.json'), `${JSON.stringify(result, null, 2)}\n`);
  }
}

/** Task id → its Harbor task directory, for the tasks of a set that came from one. */
export function harborTaskDirs(set: TaskSet): Map<string, string> {
  return new Map(set.tasks.flatMap((task) => (task.source === 'harbor' && task.origin ? [[task.id, task.origin] as const] : [])));
}
