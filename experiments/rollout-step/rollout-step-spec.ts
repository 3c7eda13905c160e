/**
 * The `rollout_step:` section (issue 31, items 1 and 3): an RL step is B tasks × K attempts (a group
 * of K per task), run with a prefix strategy (how the K attempts get their starting state), repeated
 * for `steps` consecutive steps that a stand-in trainer consumes at a fixed rate with a staleness
 * bound. The attempt itself is the rollout kind's (same task sets, agent, model service and scoring),
 * so the rollout fields it needs are picked from the rollout section's schema, not redeclared.
 */
import { z } from 'zod';
import { duration } from '../../harness/spec/fields.ts';
import { defineSection, readSection, type KindOverrides } from '../../harness/spec/kind-spec.ts';
import { UserError } from '../../harness/errors.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import type { PlanExpansion } from '../../harness/plan/plan-bounds.ts';
import { ModelCapacitySchema, RolloutSpecSchema, type RolloutSpec } from '../rollout/rollout-spec.ts';

export const PREFIX_STRATEGIES = ['fresh', 'fork', 'warm-pool'] as const;
export type PrefixStrategy = (typeof PREFIX_STRATEGIES)[number];

const distinct = <T>(what: string) => (list: readonly T[]) => new Set(list).size === list.length || `${what} is listed twice`;

/**
 * What one attempt needs from the rollout section: the task set, the agent's limits, scoring, budget,
 * and its tries (retries of infrastructure failures, injected faults, reward dedup, the rate card of
 * rollout-cost.csv), with the rollout kind's semantics (docs/rollout-cost.md).
 */
const attemptFields = RolloutSpecSchema.pick({
  tasks: true,
  invalid_tasks: true,
  grader: true,
  task_ids: true,
  wrong_fraction: true,
  retain: true,
  scoring_backend: true,
  scoring_timeout: true,
  budget_cpus: true,
  budget_memory: true,
  vm_memory: true,
  max_turns: true,
  tool_timeout: true,
  pss_interval: true,
  retries: true,
  faults: true,
  reward_dedup: true,
  rate_card: true,
});

export const TrainerSchema = z
  .object({
    /** The stand-in trainer's time per consumed batch (a full step's B × K attempts). */
    train_ms: duration.default(500),
    /** Staleness bound s: step t's rollouts may start once the trainer has finished step t − 1 − s (0 = synchronous). */
    staleness: z.number().int().nonnegative().max(16).default(0),
  })
  .strict();

export const RolloutStepSpecSchema = attemptFields
  .extend({
    /** K: attempts per task in a step (GRPO's group size). Several values make the x axis of the step-time panel. */
    group_size: z.array(z.number().int().positive().max(64)).min(1).refine(distinct('a group size'), 'a group size is listed twice').default([8]),
    /** B: tasks per step. */
    tasks_per_step: z.number().int().positive().max(64).default(4),
    /** Consecutive steps per cell run (the unit of replication of step time is the step). */
    steps: z.number().int().positive().max(1000).default(4),
    /** Repetitions of every cell, each block in a fresh seeded order (prefix strategies interleave). */
    blocks: z.number().int().positive().default(1),
    /** How the K attempts of a group get their starting state; a list compares them in one run. */
    prefix: z.array(z.enum(PREFIX_STRATEGIES)).min(1).refine(distinct('a prefix strategy'), 'a prefix strategy is listed twice').default(['fresh']),
    /** warm-pool: pre-started sandboxes kept ready (P); replenished in the background. */
    pool_size: z.number().int().positive().max(256).default(8),
    /** Rollout workers: attempts in flight at once (across overlapping steps). */
    concurrency: z.number().int().positive().max(256).default(8),
    model: ModelCapacitySchema.default({ slots: 4, base_ms: 50, per_token_ms: 0 }),
    trainer: TrainerSchema.default({ train_ms: 500, staleness: 0 }),
  })
  .strict();

export type RolloutStepSpec = z.output<typeof RolloutStepSpecSchema>;

export const rolloutStepSection = defineSection({
  key: 'rollout_step',
  schema: RolloutStepSpecSchema,
  // Parsed durations are ms; re-validation (overrides) would read a bare number as seconds.
  encode: (parsed) => ({
    ...parsed,
    scoring_timeout: `${parsed.scoring_timeout}ms`,
    tool_timeout: `${parsed.tool_timeout}ms`,
    ...(parsed.pss_interval === undefined ? {} : { pss_interval: `${parsed.pss_interval}ms` }),
    budget_memory: `${parsed.budget_memory}MiB`,
    vm_memory: `${parsed.vm_memory}MiB`,
    trainer: { ...parsed.trainer, train_ms: `${parsed.trainer.train_ms}ms` },
  }),
  applyOverrides: applyRolloutStepOverrides,
  expansion: rolloutStepExpansion,
});

export function rolloutStepOptions(spec: Spec): RolloutStepSpec {
  return readSection(spec, rolloutStepSection);
}

/** `--concurrency N` sets the rollout workers; `--batches` would be ambiguous (steps? blocks?), so it is refused. */
export function applyRolloutStepOverrides(input: Record<string, unknown>, overrides: KindOverrides): Record<string, unknown> {
  if (overrides.batches !== undefined) throw new UserError('--batches: the rollout-step kind has no batches (set rollout_step.steps or rollout_step.blocks in the spec); remove the option');
  if (!overrides.concurrency) return input;
  if (overrides.concurrency.length !== 1) throw new UserError('--concurrency: rollout-step takes one worker count (rollout_step.concurrency), not a list');
  return { ...input, concurrency: overrides.concurrency[0] };
}

function rolloutStepExpansion(options: RolloutStepSpec, spec: Spec): PlanExpansion[] {
  const largestK = Math.max(...options.group_size);
  return [
    {
      what: 'planned attempts (at most)',
      factors: [
        { field: 'rollout_step.group_size', value: largestK * options.group_size.length },
        { field: 'rollout_step.tasks_per_step', value: options.tasks_per_step },
        { field: 'rollout_step.steps', value: options.steps },
        { field: 'rollout_step.blocks', value: options.blocks },
        { field: 'rollout_step.prefix', value: options.prefix.length },
        { field: 'arms', value: spec.arms.length },
      ],
      limit: 'planned_trials',
    },
  ];
}

/**
 * The rollout pipeline's options for one attempt: the picked fields plus the rollout-only ones with
 * the values a step fixes (one model capacity, the step's workers); any other rollout field keeps the
 * rollout section's default (the step loop schedules its own attempts, so the rollout cell's own
 * scheduling fields never act here).
 */
export function attemptOptions(options: RolloutStepSpec): RolloutSpec {
  return {
    ...RolloutSpecSchema.parse({}),
    tasks: options.tasks,
    invalid_tasks: options.invalid_tasks,
    grader: options.grader,
    ...(options.task_ids ? { task_ids: options.task_ids } : {}),
    wrong_fraction: options.wrong_fraction,
    retain: options.retain,
    scoring_backend: options.scoring_backend,
    scoring_timeout: options.scoring_timeout,
    budget_cpus: options.budget_cpus,
    budget_memory: options.budget_memory,
    vm_memory: options.vm_memory,
    max_turns: options.max_turns,
    tool_timeout: options.tool_timeout,
    ...(options.pss_interval === undefined ? {} : { pss_interval: options.pss_interval }),
    retries: options.retries,
    ...(options.faults ? { faults: options.faults } : {}),
    reward_dedup: options.reward_dedup,
    ...(options.rate_card ? { rate_card: options.rate_card } : {}),
    attempts: options.tasks_per_step * Math.max(...options.group_size) * options.steps,
    attempts_by_backend: {},
    blocks: options.blocks,
    concurrency: [options.concurrency],
    concurrency_by_backend: {},
    model: [options.model],
  };
}
