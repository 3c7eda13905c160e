/**
 * The `rollout` kind (issue 16): one trial = one rollout attempt through the whole execution
 * contract (rollout-attempt.ts); cells = backend × agent × concurrency C × model capacity
 * (rollout-plan.ts), each cell's attempts run as ONE closed loop of C workers inside a shared budget
 * (rollout-cell.ts). The generic run loop asks for one trial at a time, so the first attempt of a
 * cell starts the whole cell and every attempt of it returns its record once the cell is done (the
 * records carry the cell's figures: wall, budget peak, utilization, harness CPU). A cell cut short
 * by an interruption is re-run from its unjournaled attempts on --resume.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { specArms, type PlannedTrial } from '../../harness/plan/plan.ts';
import { runScratchDir } from '../../harness/state-dir.ts';
import { namedBackendIssues } from '../../harness/spec/spec-backends.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { MODEL_JOURNAL_FILE, } from '../../services/model/index.ts';
import { attemptId as urlSafe } from '../agent/agent-kind.ts';
import { baseRecord } from '../trial-experiment.ts';
import { parseRolloutArm } from './rollout-arms.ts';
import { rolloutKindAnalysis } from './rollout-analysis.ts';
import { withArrivalFigures } from './rollout-arrival-analysis.ts';
import { runCell, type CellAttempt, type CellResult } from './rollout-cell.ts';
import { arrivalOf } from '../../harness/schedule/index.ts';
import { seedFromString } from '../../harness/plan/prng.ts';
import { attemptAssignment, attemptParams, buildRolloutPlan, cellRunKey } from './rollout-plan.ts';
import { cellFailedRecord, rolloutRecord, taskInvalidRecord, type CellCoordinates } from './rollout-record.ts';
import { withModelErrorTasks } from './fault-injection.ts';
import { RewardCache, rewardCacheFor } from './reward-cache.ts';
import { BUILTIN_AGENT_SCRIPT, prepareRolloutInputs, withScoringArm, type RolloutInputs, type TaskLoadOptions } from './rollout-inputs.ts';
import { rolloutOptions, rolloutSection, type RolloutSpec } from './rollout-spec.ts';
import type { TaskSet } from './task-contract.ts';
import { harborTaskDirs, writeHarborResults } from './harbor-result.ts';

/** Kept where tests and callers have always found it. */
export { BUILTIN_AGENT_SCRIPT } from './rollout-inputs.ts';

export interface RolloutKindDeps {
  /** Load the spec's task set (default: defaultLoadTasks in rollout-inputs.ts), baselines under cacheDir. */
  loadTasks?(name: string, options: TaskLoadOptions): Promise<TaskSet>;
  /** The built-in agent's file (default experiments/rollout/agent/agent.py). */
  agentScript?: string;
  /** Test hook (fault injection): each attempt's agent sandbox right after launch. */
  onLaunched?: Parameters<typeof runCell>[0]['onLaunched'];
}

interface RunState extends RolloutInputs {
  options: RolloutSpec;
  cells: Map<string, Promise<Map<string, TrialRecord>>>;
  /** The run's reward cache under `reward_dedup: run` (reward-cache.ts). */
  rewardCache: RewardCache | null;
}

function rolloutArms(spec: Spec): ArmRef[] {
  return specArms(spec);
}

/** The agent arms plus the one scoring backend (prepared once, shared by every arm). */
export function scoringArm(options: RolloutSpec): ArmRef {
  return { backend: options.scoring_backend, variant: null };
}

export function createRolloutExperiment(deps: RolloutKindDeps = {}): Experiment {
  let state: RunState | null = null;
  return {
    kind: 'rollout',
    spec: {
      section: rolloutSection,
      repeatsWith: 'rollout.blocks',
      refine: (spec, backends) => {
        const options = rolloutOptions(spec);
        return [
          ...namedBackendIssues(['rollout', 'scoring_backend'], [options.scoring_backend], backends),
          ...namedBackendIssues(['rollout', 'attempts_by_backend'], Object.keys(options.attempts_by_backend), backends),
          ...namedBackendIssues(['rollout', 'concurrency_by_backend'], Object.keys(options.concurrency_by_backend), backends),
        ];
      },
    },
    analysis: withArrivalFigures(rolloutKindAnalysis),
    plan: buildRolloutPlan,
    executorArms: (spec) => withScoringArm(rolloutArms(spec), scoringArm(rolloutOptions(spec))),
    async prepare(ctx) {
      const options = rolloutOptions(ctx.spec);
      const inputs = await prepareRolloutInputs({ ctx, section: 'rollout', options, scoringArm: scoringArm(options), agentScript: deps.agentScript ?? BUILTIN_AGENT_SCRIPT, ...(deps.loadTasks ? { loadTasks: deps.loadTasks } : {}) });
      const script = withModelErrorTasks(inputs.script, options.faults);
      state = { ...inputs, options, script, cells: new Map(), rewardCache: options.reward_dedup === 'run' ? new RewardCache('run') : null };
    },
    async runTrial(planned, ctx) {
      if (!state) throw new Error('rollout kind: runTrial before prepare');
      const key = cellRunKey(planned);
      let cell = state.cells.get(key);
      if (!cell) {
        cell = runCellOf(planned, ctx, state, deps);
        state.cells.set(key, cell);
      }
      const records = await cell;
      const record = records.get(planned.trial_id);
      if (record) return record;
      return cellFailedRecord(baseRecord(ctx, planned), plannedCoordinates(planned), attemptParams(planned).attempt, 'the cell run did not produce this attempt');
    },
    async teardown() {
      state = null;
    },
  };
}

/** The cell a planned attempt belongs to, from its plan params: what every record of the cell says, failures included. */
export function plannedCoordinates(planned: PlannedTrial): CellCoordinates {
  const params = attemptParams(planned);
  return {
    armLabel: armLabel(planned.arm),
    cellLabel: params.cell,
    cellRun: `rc${createHash('sha256').update(cellRunKey(planned)).digest('hex').slice(0, 10)}`,
    concurrency: params.concurrency,
    capacity: { slots: params.slots, base_ms: params.base_ms, per_token_ms: params.per_token_ms },
    arrival: params.arrival,
    admissionCap: params.admission_cap ?? 'none',
  };
}

async function runCellOf(first: PlannedTrial, ctx: ExperimentContext, state: RunState, deps: RolloutKindDeps): Promise<Map<string, TrialRecord>> {
  const key = cellRunKey(first);
  const planned = state.plan.trials.filter((t) => cellRunKey(t) === key && !state.done.has(t.trial_id));
  const params = attemptParams(first);
  const arm = parseRolloutArm(first.arm);
  const assigned: CellAttempt[] = planned.map((trial) => {
    const { attempt } = attemptParams(trial);
    const { taskIndex, path } = attemptAssignment(ctx.spec.seed, attempt, state.taskSet.tasks.length, state.options.wrong_fraction);
    // same task as every other arm's attempt k; the oracle always takes the gold path
    return { trialId: trial.trial_id, index: attempt, attemptId: urlSafe(trial.trial_id), task: state.taskSet.tasks[taskIndex]!, path: arm.oracle ? 'right' : path };
  });
  const coordinates = plannedCoordinates(first);
  const { cellRun, capacity } = coordinates;
  let result: CellResult;
  const records = new Map<string, TrialRecord>();
  // Attempts on a task proved unsolvable are never run: recorded as task_invalid, the rest run as the cell.
  const attempts = assigned.filter((attempt) => !state.invalidTasks.has(attempt.task.id));
  for (const attempt of assigned.filter((a) => state.invalidTasks.has(a.task.id))) {
    const trial = planned.find((t) => t.trial_id === attempt.trialId)!;
    const reasons = state.invalidTasks.get(attempt.task.id)!.reasons;
    records.set(attempt.trialId, taskInvalidRecord({ base: baseRecord(ctx, trial), attempt, coordinates, scoringBackend: state.options.scoring_backend, reasons }));
  }
  if (attempts.length === 0) return records;
  try {
    result = await runCell({
      run: ctx.run,
      bundleDir: ctx.bundleDir,
      cellRun,
      scratchDir: join(runScratchDir(ctx.run.stateDir, ctx.run.runId), cellRun),
      backend: first.arm.backend,
      arm,
      executor: ctx.executorFor(first.arm),
      scoringExecutor: ctx.executorFor(scoringArm(state.options)),
      concurrency: params.concurrency,
      capacity,
      arrival: arrivalOf(params.arrival),
      admissionCap: params.admission_cap,
      // a poisson cell replays the same arrivals on a rerun of the spec's seed
      scheduleSeed: seedFromString(`rollout-arrival:${ctx.spec.seed}:${key}`),
      attempts,
      script: state.script,
      journalPath: join(ctx.bundleDir, MODEL_JOURNAL_FILE),
      support: state.support,
      layer: arm.cli ? state.layers.get(arm.cli.name) ?? null : null,
      options: state.options,
      timeoutMs: ctx.spec.timeout,
      ...(deps.onLaunched ? { onLaunched: deps.onLaunched } : {}),
      seed: ctx.spec.seed,
      rewardCache: rewardCacheFor(state.options.reward_dedup, state.rewardCache),
    });
  } catch (error) {
    for (const attempt of attempts) records.set(attempt.trialId, cellFailedRecord(baseRecord(ctx, planned.find((t) => t.trial_id === attempt.trialId)!), coordinates, attempt.index, `cell ${params.cell}: ${(error as Error).message}`));
    return records;
  }
  const byTrial = new Map(result.outcomes.map((o) => [o.attempt.trialId, o]));
  for (const trial of planned) {
    const outcome = byTrial.get(trial.trial_id);
    if (!outcome) continue;
    records.set(trial.trial_id, rolloutRecord({ base: baseRecord(ctx, trial), outcome, cell: result, cellLabel: params.cell, concurrency: params.concurrency, capacity, arm, armLabel: armLabel(first.arm), options: state.options, image: ctx.run.image.digest, scriptId: state.script.id, scriptIds: state.scriptIds, scoringBackend: state.options.scoring_backend, cellRun, attemptsInRun: attempts.length, schedule: { arrival: params.arrival, admissionCap: params.admission_cap } }));
  }
  // Attempts on Harbor tasks also get Harbor's result.json beside the journal (harbor-result.ts).
  writeHarborResults(ctx.bundleDir, records.values(), harborTaskDirs(state.taskSet), Date.now() - result.wallMs, arm.agentName);
  return records;
}

export const rolloutExperiment = createRolloutExperiment();
