/**
 * An attempt's journal record: the rollout kind's record (every input, phases, reward, memory, the
 * cell's figures) plus where the attempt sat in its step and the step's own figures. Step figures
 * (step_ms, group_straggler_ratio, trainer_wait_ms, staleness) are one value per step copied onto
 * each of its attempts: the kind's analysis declares them per-`cell` with the step as the cell run
 * (facts.step_run), so a step is one sample however many attempts carry it.
 */
import { NOT_APPLICABLE, type TrialRecord } from '../../harness/journal/trial-record.ts';
import type { RolloutArm } from '../rollout/rollout-arms.ts';
import { rolloutRecord } from '../rollout/rollout-record.ts';
import type { ModelCapacity, RolloutSpec } from '../rollout/rollout-spec.ts';
import type { StepFigures } from './step-figures.ts';
import type { StepAttempt, StepAttemptOutcome, StepRunResult } from './step-run.ts';
import type { TrainerStepFigures } from './step-trainer.ts';
import type { PrefixStrategy } from './rollout-step-spec.ts';

export interface StepCoordinates {
  cellLabel: string;
  cellRun: string;
  prefix: PrefixStrategy;
  groupSize: number;
  tasksPerStep: number;
  concurrency: number;
  poolSize: number;
  trainer: { train_ms: number; staleness: number };
}

/** The step a record belongs to, unique in the run: one value of each step metric per step_run. */
export const stepRunOf = (cellRun: string, step: number) => `${cellRun}:s${step}`;

function coordinateFacts(at: StepCoordinates, attempt: Pick<StepAttempt, 'step' | 'slot' | 'member'>): Record<string, unknown> {
  return {
    prefix: at.prefix,
    group_size: at.groupSize,
    tasks_per_step: at.tasksPerStep,
    step: attempt.step,
    step_run: stepRunOf(at.cellRun, attempt.step),
    group_slot: attempt.slot,
    group_member: attempt.member,
    workers: at.concurrency,
    pool_size: at.prefix === 'warm-pool' ? at.poolSize : null,
    trainer_train_ms: at.trainer.train_ms,
    trainer_staleness_bound: at.trainer.staleness,
  };
}

export interface StepRecordInput {
  base: TrialRecord;
  outcome: StepAttemptOutcome;
  run: StepRunResult;
  step: StepFigures;
  trainer: TrainerStepFigures | null;
  at: StepCoordinates;
  arm: RolloutArm;
  armLabel: string;
  options: RolloutSpec;
  capacity: ModelCapacity;
  image: string;
  scriptId: string;
  scriptIds: string[];
}

export function stepRecord(input: StepRecordInput): TrialRecord {
  const { outcome, step, trainer } = input;
  const record = rolloutRecord({
    base: input.base, outcome, cell: input.run.cell, cellLabel: input.at.cellLabel, cellRun: input.at.cellRun, concurrency: input.at.concurrency, capacity: input.capacity,
    arm: input.arm, armLabel: input.armLabel, options: input.options, image: input.image, scriptId: input.scriptId, scriptIds: input.scriptIds,
    scoringBackend: input.options.scoring_backend, attemptsInRun: input.run.outcomes.length,
  });
  const metrics: Record<string, number> = { ...record.metrics, start_ms: outcome.phases.prepare_ms + outcome.phases.ready_ms, step_ms: step.stepMs };
  if (step.groupStragglerRatio !== null) metrics.group_straggler_ratio = step.groupStragglerRatio;
  if (trainer) {
    metrics.trainer_wait_ms = trainer.waitMs;
    metrics.staleness = trainer.staleness;
  }
  return {
    ...record,
    metrics,
    facts: {
      ...record.facts,
      ...coordinateFacts(input.at, outcome.attempt),
      pool_claim: outcome.poolClaim,
      pool_entry: outcome.poolEntry,
      ...(outcome.fork ? { fork: outcome.fork } : {}),
      step_attempts: step.attempts,
      step_valid: step.valid,
      ...(input.run.pool ? { pool: input.run.pool } : {}),
    },
  };
}

/**
 * An attempt whose prefix strategy cannot run on its backend (fork where the checkpoint mechanism
 * cannot carry an attempt): never run, no metric, failed/not_applicable with the reason in
 * facts.prefix_unavailable, so it stays in the planned denominator and the summary names why.
 */
export function unavailableRecord(base: TrialRecord, at: StepCoordinates, attempt: Pick<StepAttempt, 'step' | 'slot' | 'member' | 'task'>, armLabel: string, reason: string): TrialRecord {
  return {
    ...base,
    outcome: 'failed',
    failure_category: NOT_APPLICABLE,
    notes: [`prefix ${at.prefix} not applicable on ${armLabel}: ${reason}`],
    facts: { arm_label: armLabel, cell: at.cellLabel, cell_run: at.cellRun, task_id: attempt.task.id, ...coordinateFacts(at, attempt), prefix_unavailable: reason },
  };
}
