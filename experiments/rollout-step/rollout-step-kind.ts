/**
 * The `rollout-step` kind (issue 31, items 1 and 3): the RL step, not one rollout. One trial = one
 * rollout attempt, as in the rollout kind, whose attempt pipeline (task sets, solvability pre-pass,
 * model service, agent, scoring, records) it reuses; cells = arm × prefix strategy × group size K,
 * and a cell run is `steps` steps of B tasks × K attempts under a stand-in trainer
 * (step-run.ts). Each attempt runs as the rollout kind's tries (retries, injected faults, reward
 * dedup: the spec fields and semantics of rollout's, docs/rollout-cost.md). The first attempt of a
 * cell run starts the whole series; every attempt of it returns its record once the series is done.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { specArms, type PlannedTrial } from '../../harness/plan/plan.ts';
import { runScratchDir } from '../../harness/state-dir.ts';
import { namedBackendIssues } from '../../harness/spec/spec-backends.ts';
import { MODEL_JOURNAL_FILE, } from '../../services/model/index.ts';
import { attemptId as urlSafe } from '../agent/agent-kind.ts';
import { baseRecord } from '../trial-experiment.ts';
import { parseRolloutArm } from '../rollout/rollout-arms.ts';
import { BUILTIN_AGENT_SCRIPT, prepareRolloutInputs, withScoringArm, type RolloutInputs } from '../rollout/rollout-inputs.ts';
import type { RolloutSpec } from '../rollout/rollout-spec.ts';
import { withModelErrorTasks } from '../rollout/fault-injection.ts';
import { RewardCache, rewardCacheFor } from '../rollout/reward-cache.ts';
import { forkUnavailableReason } from './prefix-fork.ts';
import { rolloutStepKindAnalysis } from './rollout-step-analysis.ts';
import { buildRolloutStepPlan, groupAssignment, matchedAttemptIndex, stepAttemptParams, stepCellRunKey } from './rollout-step-plan.ts';
import { stepRecord, unavailableRecord, type StepCoordinates } from './rollout-step-record.ts';
import { attemptOptions, rolloutStepOptions, rolloutStepSection, type RolloutStepSpec } from './rollout-step-spec.ts';
import { stepFigures, type StepSpan } from './step-figures.ts';
import { runSteps, type StepAttempt, type StepAttemptOutcome } from './step-run.ts';

interface RunState extends Omit<RolloutInputs, 'invalidTasks'> {
  options: RolloutStepSpec;
  attempt: RolloutSpec;
  /** Tasks the pre-pass proved unsolvable: a step with one of them in a group is not run. */
  invalidTasks: Set<string>;
  cells: Map<string, Promise<Map<string, TrialRecord>>>;
  /** reward_dedup: run — one cache across the run's cells. */
  rewardCache: RewardCache | null;
}

const scoringArmOf = (options: RolloutStepSpec) => ({ backend: options.scoring_backend, variant: null });

export function createRolloutStepExperiment(): Experiment {
  let state: RunState | null = null;
  return {
    kind: 'rollout-step',
    spec: {
      section: rolloutStepSection,
      repeatsWith: 'rollout_step.blocks',
      refine: (spec, backends) => namedBackendIssues(['rollout_step', 'scoring_backend'], [rolloutStepOptions(spec).scoring_backend], backends),
    },
    analysis: rolloutStepKindAnalysis,
    plan: buildRolloutStepPlan,
    executorArms: (spec) => withScoringArm(specArms(spec), scoringArmOf(rolloutStepOptions(spec))),
    async prepare(ctx) {
      const options = rolloutStepOptions(ctx.spec);
      const attempt = attemptOptions(options);
      const inputs = await prepareRolloutInputs({ ctx, section: 'rollout_step', options: attempt, scoringArm: scoringArmOf(options), agentScript: BUILTIN_AGENT_SCRIPT });
      const script = withModelErrorTasks(inputs.script, attempt.faults);
      state = { ...inputs, script, options, attempt, invalidTasks: new Set(inputs.invalidTasks.keys()), cells: new Map(), rewardCache: attempt.reward_dedup === 'run' ? new RewardCache('run') : null };
    },
    async runTrial(planned, ctx) {
      if (!state) throw new Error('rollout-step kind: runTrial before prepare');
      const key = stepCellRunKey(planned);
      let cell = state.cells.get(key);
      if (!cell) {
        cell = runCellOf(planned, ctx, state);
        state.cells.set(key, cell);
      }
      const record = (await cell).get(planned.trial_id);
      return record ?? { ...baseRecord(ctx, planned), notes: ['harness error: the cell run did not produce this attempt'] };
    },
    async teardown() {
      state = null;
    },
  };
}

/** The cell run's attempts in step order, each with its group's task and its own scripted path. */
function stepAttempts(planned: PlannedTrial[], ctx: ExperimentContext, state: RunState, oracle: boolean): StepAttempt[] {
  return planned
    .map((trial) => {
      const p = stepAttemptParams(trial);
      const { taskIndex, path } = groupAssignment(ctx.spec.seed, state.options.tasks_per_step, p.step, p.slot, p.member, state.taskSet.tasks.length, state.options.wrong_fraction);
      const index = matchedAttemptIndex(state.options.tasks_per_step, p.step, p.slot, p.member);
      return { trialId: trial.trial_id, index, attemptId: urlSafe(trial.trial_id), task: state.taskSet.tasks[taskIndex]!, path: oracle ? ('right' as const) : path, step: p.step, slot: p.slot, member: p.member };
    })
    .sort((a, b) => a.step - b.step || a.slot - b.slot || a.member - b.member);
}

/**
 * An attempt's span in its step: from its first try's start (the step waited for every try) to its
 * last try's end; its wall in the group is its last try's (a retried attempt counts once).
 */
function stepSpan(o: StepAttemptOutcome, cellStart: bigint): StepSpan {
  const start = o.tries?.[0]?.result.stamps.start ?? o.result.stamps.start;
  return { step: o.attempt.step, slot: o.attempt.slot, startMs: Number(start - cellStart) / 1e6, endMs: Number(o.result.stamps.end - cellStart) / 1e6, wallMs: o.phases.wall_ms, valid: o.category === null && o.result.outcome === 'ok' };
}

async function runCellOf(first: PlannedTrial, ctx: ExperimentContext, state: RunState): Promise<Map<string, TrialRecord>> {
  const key = stepCellRunKey(first);
  const planned = state.plan.trials.filter((t) => stepCellRunKey(t) === key && !state.done.has(t.trial_id));
  const params = stepAttemptParams(first);
  const arm = parseRolloutArm(first.arm);
  const label = armLabel(first.arm);
  const cellRun = `rs${createHash('sha256').update(key).digest('hex').slice(0, 10)}`;
  const at: StepCoordinates = { cellLabel: params.cell, cellRun, prefix: params.prefix, groupSize: params.group_size, tasksPerStep: state.options.tasks_per_step, concurrency: state.options.concurrency, poolSize: state.options.pool_size, trainer: state.options.trainer };
  const byId = new Map(planned.map((t) => [t.trial_id, t]));
  const attempts = stepAttempts(planned, ctx, state, arm.oracle);
  const records = new Map<string, TrialRecord>();
  const notRun = (reason: string) => {
    for (const attempt of attempts) records.set(attempt.trialId, unavailableRecord(baseRecord(ctx, byId.get(attempt.trialId)!), at, attempt, label, reason));
    return records;
  };
  const forkReason = params.prefix === 'fork' ? forkUnavailableReason(first.arm.backend, first.arm.variant) : null;
  if (forkReason) return notRun(forkReason);
  if (attempts.some((attempt) => state.invalidTasks.has(attempt.task.id))) return notRun('a task of this cell run failed the solvability pre-pass (rollout_step.invalid_tasks: record): a step with a broken group measures nothing');
  try {
    const result = await runSteps({
      run: ctx.run, bundleDir: ctx.bundleDir, cellRun, scratchDir: join(runScratchDir(ctx.run.stateDir, ctx.run.runId), cellRun), backend: first.arm.backend, arm,
      executor: ctx.executorFor(first.arm), scoringExecutor: ctx.executorFor(scoringArmOf(state.options)), prefix: params.prefix,
      steps: Math.max(...attempts.map((a) => a.step)) + 1, concurrency: state.options.concurrency, poolSize: state.options.pool_size, trainer: state.options.trainer,
      capacity: state.options.model, attempts, script: state.script, journalPath: join(ctx.bundleDir, MODEL_JOURNAL_FILE), support: state.support,
      layer: arm.cli ? state.layers.get(arm.cli.name) ?? null : null, options: state.attempt, timeoutMs: ctx.spec.timeout,
      seed: ctx.spec.seed, rewardCache: rewardCacheFor(state.attempt.reward_dedup, state.rewardCache),
    });
    const figures = stepFigures(result.outcomes.map((o) => stepSpan(o, result.cell.tStartNs)));
    for (const outcome of result.outcomes) {
      records.set(outcome.attempt.trialId, stepRecord({
        base: baseRecord(ctx, byId.get(outcome.attempt.trialId)!), outcome, run: result, step: figures.find((f) => f.step === outcome.attempt.step)!,
        trainer: result.trainer.find((t) => t.step === outcome.attempt.step) ?? null, at, arm, armLabel: label, options: state.attempt, capacity: state.options.model,
        image: ctx.run.image.digest, scriptId: state.script.id, scriptIds: state.scriptIds,
      }));
    }
  } catch (error) {
    for (const attempt of attempts) records.set(attempt.trialId, { ...baseRecord(ctx, byId.get(attempt.trialId)!), notes: [`harness error: cell ${params.cell}: ${(error as Error).message}`] });
  }
  return records;
}

export const rolloutStepExperiment = createRolloutStepExperiment();
