/**
 * The `rollout:` section of a spec (the rollout kind owns it): which task set, how many attempts per
 * cell, the cell dimensions (concurrency C per backend, model-service capacity), the shared budget
 * every cell runs inside, the scoring backend and the retain policy.
 */
import { z } from 'zod';
import { HARBOR_TASKS_PREFIX, harborTasksPath } from './tasks/harbor-ref.ts';
import { cpuList, duration, size } from '../../harness/spec/fields.ts';
import { defineSection, readSection, type KindOverrides } from '../../harness/spec/kind-spec.ts';
import { UserError } from '../../harness/errors.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import type { ExpansionFactor, PlanExpansion } from '../../harness/plan/plan-bounds.ts';
import { FaultsSchema } from './fault-injection.ts';
import { RetriesSchema } from './retry-policy.ts';
import { RewardDedupSchema } from './reward-cache.ts';
import { RateCardSchema } from './sample-cost.ts';
import { AdmissionCapSchema, ArrivalTextSchema } from '../../harness/schedule/index.ts';

// At most 20,000 workers: bench/harness-scale.bench.ts runs the loop itself that far (issue 33). A real
// backend's C is bounded by its budget's CPUs and memory, which a cell refuses or records, not by this cap.
const concurrencyList = z.array(z.number().int().positive().max(20_000)).min(1).refine((list) => new Set(list).size === list.length, 'a concurrency is listed twice');

/** One model-service capacity: `slots` concurrent requests, service time base_ms + per_token_ms × reply tokens. */
export const ModelCapacitySchema = z
  .object({
    slots: z.number().int().positive(),
    base_ms: z.number().nonnegative().default(0),
    per_token_ms: z.number().nonnegative().default(0),
  })
  .strict();
export type ModelCapacity = z.output<typeof ModelCapacitySchema>;

export const RETAIN_POLICIES = ['all', 'none', 'rewarded', 'failed'] as const;
export type RetainPolicy = (typeof RETAIN_POLICIES)[number];

/** `{source: harbor, path: DIR}`: Harbor task directories (experiments/rollout/tasks/harbor.ts), carried as the task-set name `harbor:DIR`. */
const HarborTasksSchema = z
  .object({ source: z.literal('harbor'), path: z.string().min(1) })
  .strict()
  .transform((ref) => `${HARBOR_TASKS_PREFIX}${ref.path}`);

export const RolloutSpecSchema = z
  .object({
    /** A task set name (`builtin`) or a SWE-bench-format JSONL path (relative to the spec file, or absolute). */
    tasks: z.union([z.string().min(1), HarborTasksSchema]).default('builtin'),
    /**
     * A task the solvability pre-pass proves broken (gold fails FAIL_TO_PASS or PASS_TO_PASS, or the
     * baseline already passes FAIL_TO_PASS): `refuse` stops the run before its first attempt naming
     * the task and the reasons; `record` keeps the run and records that task's attempts as
     * `task_invalid` (infrastructure, never reward 0) without running them.
     */
    invalid_tasks: z.enum(['refuse', 'record']).default('refuse'),
    /**
     * Who grades a candidate: `unittest` (sandbench's stdlib runner), `swebench` (swebench 5.0.2's
     * make_test_spec + get_eval_report over the eval script's log, in a host venv built on first use),
     * or `both` (swebench's reward, the unittest grader's beside it in facts.grade for agreement).
     */
    grader: z.enum(['unittest', 'swebench', 'both']).default('unittest'),
    /** Only these task ids of the set (default: all). */
    task_ids: z.array(z.string().min(1)).min(1).optional(),
    /** Rollout attempts per cell (a closed loop of C workers runs them). */
    attempts: z.number().int().positive().default(64),
    /** Per-backend attempts per cell replacing `attempts` (a TCG VM rollout takes 40-90 s here; say why in the spec). */
    attempts_by_backend: z.record(z.string(), z.number().int().positive()).default({}),
    /** Repetitions of every cell (each repetition runs the cells in a fresh seeded order). */
    blocks: z.number().int().positive().default(1),
    /**
     * Warm-up blocks run before the formal ones: every cell once, in an order of their own, their
     * attempts recorded (warmup: true) and kept out of every figure. The harness process compiles
     * its per-attempt path during its first cells (V8's tiering), which charges 2-5 ms per rollout to
     * whichever arm the seed puts first; a warm-up block pays it before any measured cell.
     */
    warmup_blocks: z.number().int().nonnegative().default(0),
    /** Concurrency levels C (workers in the closed loop). */
    concurrency: concurrencyList.default([1, 2, 4, 8, 16]),
    /** Per-backend concurrency levels replacing `concurrency` (VMs at lower C). */
    concurrency_by_backend: z.record(z.string(), concurrencyList).default({}),
    /**
     * How a cell's attempts arrive (harness/schedule/arrival.ts): `closed` (C workers, each takes the
     * next attempt when its previous one ends), `burst(N)`, `staggered(Δ)`, `poisson(λ)` (seeded from
     * the run seed). A list: each mode is a cell coordinate, so one run compares them, interleaved.
     */
    arrival: z.array(ArrivalTextSchema).min(1).refine((list) => new Set(list).size === list.length, 'an arrival mode is listed twice').default(['closed']),
    /**
     * Most attempts in their start (staging → the sandbox's first line) at once, or `none`
     * (harness/schedule/admission.ts). A list: each cap is a cell coordinate, e.g. [8, 16, none].
     */
    admission_cap: z.array(AdmissionCapSchema).min(1).refine((list) => new Set(list).size === list.length, 'an admission cap is listed twice').default(['none']),
    /** Model-service capacities; every cell runs against one, with its own service and journal segment. */
    model: z.array(ModelCapacitySchema).min(1).default([{ slots: 4, base_ms: 50, per_token_ms: 0 }]),
    /** Seeded fraction of attempts whose script takes the task's wrong path (reward should be 0). */
    wrong_fraction: z.number().min(0).max(1).default(0.25),
    /** Which candidates are kept in the bundle's content-addressed store after scoring. */
    retain: z.enum(RETAIN_POLICIES).default('all'),
    /** Retries of infrastructure failures, same task and path (retry-policy.ts; issue 31). */
    retries: RetriesSchema.default({ max: 0, backoff_ms: 0 }),
    /** Faults injected at a set rate per try (fault-injection.ts); absent = none. */
    faults: FaultsSchema.optional(),
    /** Score identical candidates once: off, per cell run, or across the run (reward-cache.ts). */
    reward_dedup: RewardDedupSchema.default('off'),
    /** USD per CPU-hour, GiB-hour and worker-hour for rollout-cost.csv; the user's prices, none ship (sample-cost.ts). */
    rate_card: RateCardSchema.optional(),
    /** The one backend every arm's candidates are scored on (a fresh sandbox per score). */
    scoring_backend: z.string().min(1).default('staged'),
    scoring_timeout: duration.default(60_000),
    /** Shared budget of every cell (study: 2 CPUs, 2 GiB, zero swap). */
    budget_cpus: cpuList.default('0-1'),
    budget_memory: size.default(2048),
    /** Guest RAM per VM sandbox. */
    vm_memory: size.default(256),
    /** Built-in agent: turns before it gives up, and its shell tool's timeout. */
    max_turns: z.number().int().positive().default(20),
    tool_timeout: duration.default(30_000),
    /**
     * Per-process detail: PSS sampling of each running sandbox's process tree at this interval. Off
     * when absent: each attempt's memory figure is its own cgroup's kernel peak (issue 30), and the
     * sampling costs harness CPU per rollout.
     */
    pss_interval: duration.optional(),
  })
  .strict();

export type RolloutSpec = z.output<typeof RolloutSpecSchema>;

/** The section as the kind descriptor's `spec` field describes it (key + schema). */
export const rolloutSection = defineSection({
  key: 'rollout',
  schema: RolloutSpecSchema,
  // A JSONL task file and a Harbor task directory are paths (against the spec file); any other value names a task set.
  paths: (section, resolvePath) => {
    const harbor = harborTasksPath(section.tasks);
    if (harbor !== null) return { ...section, tasks: `${HARBOR_TASKS_PREFIX}${resolvePath(harbor)}` };
    return section.tasks.endsWith('.jsonl') ? { ...section, tasks: resolvePath(section.tasks) } : section;
  },
  // Parsed durations are ms and sizes MiB; re-validation (every run applies overrides) reads a bare number as seconds.
  encode: (parsed) => ({
    ...parsed,
    scoring_timeout: `${parsed.scoring_timeout}ms`,
    tool_timeout: `${parsed.tool_timeout}ms`,
    ...(parsed.pss_interval === undefined ? {} : { pss_interval: `${parsed.pss_interval}ms` }),
    budget_memory: `${parsed.budget_memory}MiB`,
    vm_memory: `${parsed.vm_memory}MiB`,
  }),
  applyOverrides: applyRolloutOverrides,
  expansion: rolloutExpansion,
});

/** The parsed section of a loaded spec (the loader stores it parsed; absent = defaults). */
export function rolloutOptions(spec: Spec): RolloutSpec {
  return readSection(spec, rolloutSection);
}

/**
 * Planned attempts, bounded from above without building the plan: blocks × arms × the most attempts
 * any backend runs per cell × the most concurrency levels any backend has × model capacities ×
 * arrival modes × admission caps.
 */
function rolloutExpansion(options: RolloutSpec, spec: Spec): PlanExpansion[] {
  const byBackend = Object.entries(options.attempts_by_backend as Record<string, number>);
  const attempts = byBackend.reduce((most, [backend, value]) => (value > most.value ? { field: `rollout.attempts_by_backend.${backend}`, value } : most), { field: 'rollout.attempts', value: options.attempts });
  const levels = Math.max(options.concurrency.length, ...Object.values(options.concurrency_by_backend as Record<string, number[]>).map((list) => list.length));
  return [
    {
      what: 'planned attempts (at most)',
      factors: [
        attempts, blocksFactor(options), { field: 'arms', value: spec.arms.length }, { field: 'rollout.concurrency', value: levels }, { field: 'rollout.model', value: options.model.length },
        { field: 'rollout.arrival', value: options.arrival.length }, { field: 'rollout.admission_cap', value: options.admission_cap.length },
      ],
      limit: 'planned_trials',
    },
  ];
}

/** Warm-up and formal blocks together, named by the larger (the field a reader should lower). */
function blocksFactor(options: RolloutSpec): ExpansionFactor {
  const field = options.warmup_blocks > options.blocks ? 'rollout.warmup_blocks' : 'rollout.blocks';
  return { field, value: options.blocks + options.warmup_blocks };
}

/** Attempts per cell of one backend. */
export function attemptsFor(options: RolloutSpec, backend: string): number {
  return (options.attempts_by_backend as Record<string, number | undefined>)[backend] ?? options.attempts;
}

/** Concurrency levels of one backend. */
export function concurrencyFor(options: RolloutSpec, backend: string): number[] {
  return (options.concurrency_by_backend as Record<string, number[] | undefined>)[backend] ?? options.concurrency;
}

/**
 * The kind's `--concurrency`: it replaces every concurrency list of the section — `concurrency` and
 * each `concurrency_by_backend` entry (dropped, so the one list runs on every backend, VMs included;
 * resolved-spec.json then shows `concurrency_by_backend: {}`). `--batches` means nothing here (a
 * cell's repetitions are `rollout.blocks`), so it is refused rather than ignored.
 */
export function applyRolloutOverrides(input: Record<string, unknown>, overrides: KindOverrides): Record<string, unknown> {
  if (overrides.batches !== undefined) throw new UserError('--batches: the rollout kind has no batches (a cell repeats with rollout.blocks in the spec); remove the option');
  return overrides.concurrency ? { ...input, concurrency: overrides.concurrency, concurrency_by_backend: {} } : input;
}
