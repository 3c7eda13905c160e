/**
 * The rollout-step schedule: cells = arm × prefix strategy × group size K; every block runs each
 * cell once, cells in a seeded shuffled order (so prefix strategies interleave on a loaded machine);
 * a cell run is `steps` consecutive steps of B tasks × K attempts, one planned trial per attempt.
 * Which task a group takes depends only on the seed, the step and the slot, and which scripted path a
 * member takes only on those and the member: every cell's step s, slot b is the same group, so
 * strategies pair on identical work.
 */
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { PLAN_SCHEMA_VERSION, specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { createPrng, shuffled } from '../../harness/plan/prng.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { parseRolloutArm } from '../rollout/rollout-arms.ts';
import { attemptAssignment } from '../rollout/rollout-plan.ts';
import type { AttemptPath } from '../rollout/task-contract.ts';
import { rolloutStepOptions, type PrefixStrategy } from './rollout-step-spec.ts';

/** Members per group are at most 64 (the spec's bound), so (group, member) → one index for the path draw. */
const MEMBER_STRIDE = 64;

export interface StepCell {
  arm: ArmRef;
  prefix: PrefixStrategy;
  groupSize: number;
}

export function stepCellLabel(cell: StepCell): string {
  return `${armLabel(cell.arm)}-${cell.prefix}-k${cell.groupSize}`;
}

export function stepCells(spec: Spec): StepCell[] {
  const options = rolloutStepOptions(spec);
  return specArms(spec).flatMap((arm) => options.prefix.flatMap((prefix) => options.group_size.map((groupSize) => ({ arm, prefix, groupSize }))));
}

/** What a planned attempt carries: its cell and where it sits in the cell run. */
export interface StepAttemptParams {
  cell: string;
  prefix: PrefixStrategy;
  group_size: number;
  step: number;
  /** b: the group's slot in the step (0..B-1). */
  slot: number;
  /** m: the attempt's place in its group (0..K-1). */
  member: number;
}

export function stepAttemptParams(planned: PlannedTrial): StepAttemptParams {
  const p = planned.params ?? {};
  return { cell: String(p.cell), prefix: String(p.prefix) as PrefixStrategy, group_size: Number(p.group_size), step: Number(p.step), slot: Number(p.slot), member: Number(p.member) };
}

/** A cell in one block: its attempts run as one series of steps. */
export function stepCellRunKey(planned: PlannedTrial): string {
  return `${planned.block}:${stepAttemptParams(planned).cell}`;
}

/**
 * Member m of group (step s, slot b) as one index, the same in every cell and block of a run: its
 * scripted path's draw and its injected faults' (fault-injection.ts), so every prefix strategy meets
 * the same work and the same faults on the same matched attempt.
 */
export function matchedAttemptIndex(tasksPerStep: number, step: number, slot: number, member: number): number {
  return (step * tasksPerStep + slot) * MEMBER_STRIDE + member;
}

/** The group (step s, slot b) of a cell run: its task and each member's scripted path, from the seed only. */
export function groupAssignment(seed: number, tasksPerStep: number, step: number, slot: number, member: number, taskCount: number, wrongFraction: number): { taskIndex: number; path: AttemptPath } {
  const { taskIndex } = attemptAssignment(seed, step * tasksPerStep + slot, taskCount, 0);
  const { path } = attemptAssignment(seed, matchedAttemptIndex(tasksPerStep, step, slot, member), taskCount, wrongFraction);
  return { taskIndex, path };
}

export function buildRolloutStepPlan(spec: Spec): Plan {
  const options = rolloutStepOptions(spec);
  specArms(spec).forEach((arm, index) => parseRolloutArm(arm, index));
  const prng = createPrng(spec.seed);
  const trials: PlannedTrial[] = [];
  const pad = (value: number, width: number) => String(value).padStart(width, '0');
  for (let block = 0; block < options.blocks; block++) {
    for (const cell of shuffled(stepCells(spec), prng)) {
      const label = stepCellLabel(cell);
      for (let step = 0; step < options.steps; step++) {
        for (let slot = 0; slot < options.tasks_per_step; slot++) {
          for (let member = 0; member < cell.groupSize; member++) {
            trials.push({
              trial_id: `b${pad(block, 4)}-${label}-s${pad(step, 3)}-t${pad(slot, 2)}-m${pad(member, 2)}`,
              block,
              position: trials.length,
              warmup: false,
              arm: cell.arm,
              seed: prng.int(0, 0x7fffffff),
              params: { cell: label, prefix: cell.prefix, group_size: cell.groupSize, step, slot, member },
            });
          }
        }
      }
    }
  }
  return { schema_version: PLAN_SCHEMA_VERSION, spec_name: spec.name, experiment: spec.experiment, seed: spec.seed, arms: specArms(spec), warmup_blocks: 0, blocks: options.blocks, trials };
}
