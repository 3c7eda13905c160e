/**
 * The experiment spec: this zod schema is the single source of truth for the YAML format.
 * Unknown keys are rejected everywhere (`.strict()`), so a typo is an error, not a silent default.
 */
import { z } from 'zod';
import { BACKENDS } from '../backends.ts';
import { parseDurationMs, parseSizeMiB } from './units.ts';

export const EXPERIMENT_KINDS = ['shell-ready', 'repair', 'density', 'replay', 'lazy-image', 'command', 'isolation', 'checkpoint', 'agent'] as const;
export type ExperimentKind = (typeof EXPERIMENT_KINDS)[number];

const duration = z
  .union([z.string(), z.number()])
  .transform((value, ctx) => {
    const ms = parseDurationMs(value);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a positive duration such as "30s", "500ms" or a number of seconds' });
      return z.NEVER;
    }
    return ms;
  });

const size = z
  .union([z.string(), z.number()])
  .transform((value, ctx) => {
    const mib = parseSizeMiB(value);
    if (mib === null) {
      ctx.addIssue({ code: 'custom', message: 'expected a size such as "2GiB", "256MiB" or a number of MiB' });
      return z.NEVER;
    }
    return mib;
  });

const cpuList = z
  .string()
  .regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'expected a CPU list such as "0,1" or "0-1"');

export const ArmSpecSchema = z
  .object({
    backend: z.enum(BACKENDS, { message: `expected one of ${BACKENDS.join(', ')}` }),
    variant: z.string().min(1).optional(),
  })
  .strict();

export const ControlsSchema = z
  .object({
    /** CPU affinity for every launched tree (study: CPUs 0,1). */
    cpus: cpuList.optional(),
    /** Memory limit per sandbox (containers --memory, VM guest RAM). */
    memory: size.optional(),
    /** Swap allowed; the study runs with zero swap. Only 0 is supported. */
    swap: z.literal(0).default(0),
  })
  .strict();

export const ImageSpecSchema = z
  .object({
    suite: z.string().default('bookworm'),
    packages: z.array(z.string().min(1)).default(['python3', 'git', 'busybox', 'ca-certificates']),
    /** Debian mirror; default: the first one apt is configured with. */
    mirror: z.string().url().optional(),
    /** Fixed build epoch: the same inputs give the same tar digest. */
    source_date_epoch: z.number().int().nonnegative().default(1761955200),
  })
  .strict();

export const TaskSpecSchema = z
  .object({
    /** command kind: what to run inside the sandbox, cwd /workspace. */
    argv: z.array(z.string()).min(1).optional(),
    /** command kind: a stdout line that marks "ready" (ready_ms); absent = only completion. */
    ready_marker: z.string().min(1).optional(),
    env: z.record(z.string(), z.string()).default({}),
    /** Baseline workspace fixture: a directory under data/fixtures, or empty. */
    workspace: z.string().optional(),
  })
  .strict();

export const ComparisonSpecSchema = z
  .object({
    candidate: z.string().min(1),
    control: z.string().min(1),
    metric: z.string().min(1),
  })
  .strict();

export const DensitySpecSchema = z
  .object({
    workloads: z.array(z.enum(['useful', 'idle'])).min(1).default(['useful']),
    concurrency: z.array(z.number().int().positive()).min(1).default([1, 2, 4, 8, 16, 32]),
    batches: z.number().int().positive().default(5),
    /** Shared budget for the whole batch (study: 2 CPUs, 2 GiB, zero swap). */
    budget_cpus: cpuList.default('0-1'),
    budget_memory: size.default(2048),
    /** Guest RAM per VM worker. */
    vm_memory: size.default(256),
    /** TCG translation-cache size per VM worker, MiB (`-accel tcg,tb-size=`); a recorded control (ignored under KVM). */
    vm_tcg_tb_size: z.number().int().positive().default(32),
    payload_mib: z.number().int().nonnegative().default(32),
    ready_timeout: duration.default(120_000),
    /** Bisect the largest N where every batch passes, between these bounds. */
    capacity_search: z
      .object({ min: z.number().int().positive(), max: z.number().int().positive() })
      .strict()
      .optional(),
  })
  .strict();

export const ReplaySpecSchema = z
  .object({
    agents: z
      .array(z.enum(['claude-code', 'codex', 'opencode', 'mini-swe-agent', 'openhands', 'pi-agent', 'swe-agent']))
      .min(1)
      .default(['claude-code', 'codex', 'opencode', 'mini-swe-agent', 'openhands', 'pi-agent', 'swe-agent']),
    trajectories: z.number().int().positive().default(20),
    repetitions: z.number().int().positive().default(3),
    subjects: z.array(z.enum(['sandbench', 'pvisor-replay'])).min(1).default(['sandbench', 'pvisor-replay']),
    /** How sandbench's preparer is launched: a plain-JS bundle built before the first trial (default:
     *  tsx start-up would dominate the timing), a V8 startup snapshot of it, the lean tsx entry, or the full CLI. */
    preparer_entry: z.enum(['bundle', 'snapshot', 'tsx-lean', 'cli']).default('bundle'),
  })
  .strict();

/** agent kind: arms are backend × agent CLI, variant `<agent>` or `<agent>@cpu-<model>` (experiments/agent). */
export const AgentSpecSchema = z
  .object({
    /** A CLI that sent no model request by then is stopped: failed/timeout (the study's 90 s preflight). */
    init_deadline: duration.default(90_000),
    /** The model script (path from the project root or absolute); its default task drives every CLI. */
    script: z.string().min(1).default('data/model-scripts/marker.yaml'),
    prompt: z.string().min(1).default('Run the shell command `printf fixture > marker.txt` in the current directory, then reply done.'),
    /** The file the script's tool call writes, and the bytes it must hold for a valid trial. */
    candidate_file: z.string().min(1).default('marker.txt'),
    candidate_content: z.string().default('fixture'),
    /** Model service capacity: service time = base_ms + per_token_ms × reply tokens. */
    slots: z.number().int().positive().default(1),
    base_ms: z.number().nonnegative().default(0),
    per_token_ms: z.number().nonnegative().default(0),
    /** Debug pass: trace every connection attempt with strace (host arms only; timings inflated, flagged). */
    debug_trace: z.boolean().default(false),
  })
  .strict();

/** checkpoint kind: branch K children from one mid-rollout parent per trial (experiments/checkpoint). */
export const CheckpointSpecSchema = z
  .object({
    children: z.array(z.number().int().positive().max(32)).min(1).default([1, 4, 8]),
    /** The parent's larger file, MiB (issue 18: one 32 MiB file next to small edits). */
    file_mib: z.number().int().nonnegative().default(32),
    /** Guest RAM of the VM arms. */
    vm_memory: size.default(256),
  })
  .strict();

/** Where an isolation trial's fixtures sit relative to $HOME (a recorded control; experiments/isolation/isolation-placement.ts). */
export const FIXTURE_PLACEMENTS = ['outside-home', 'inside-home'] as const;

export const IsolationSpecSchema = z
  .object({
    /** Every arm runs once per placement in each block; `outside-home` is the protocol's (published) placement. */
    placements: z
      .array(z.enum(FIXTURE_PLACEMENTS, { message: `expected one of ${FIXTURE_PLACEMENTS.join(', ')}` }))
      .min(1)
      .refine((list) => new Set(list).size === list.length, 'a placement is listed twice')
      .default(['outside-home']),
  })
  .strict();

export const LazySpecSchema = z
  .object({
    /** Formal rounds; default `trials`, so `--trials` overrides work for this kind too. */
    rounds: z.number().int().positive().optional(),
    initial_rounds: z.number().int().nonnegative().default(1),
    /** Warmup rounds after the initial ones; default `warmups`. */
    warmup_rounds: z.number().int().nonnegative().optional(),
    variants: z.array(z.enum(['full', 'lazy'])).min(1).default(['full', 'lazy']),
  })
  .strict();

export const SpecSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    experiment: z.enum(EXPERIMENT_KINDS, { message: `expected one of ${EXPERIMENT_KINDS.join(', ')}` }),
    arms: z.array(ArmSpecSchema).min(1),
    warmups: z.number().int().nonnegative(),
    trials: z.number().int().positive(),
    seed: z.number().int().nonnegative(),
    timeout: duration,
    controls: ControlsSchema.default({ swap: 0 }),
    image: ImageSpecSchema.default({
      suite: 'bookworm',
      packages: ['python3', 'git', 'busybox', 'ca-certificates'],
      source_date_epoch: 1761955200,
    }),
    task: TaskSpecSchema.default({ env: {} }),
    compare: z.array(ComparisonSpecSchema).optional(),
    /** Flag a comparison `underpowered` when its CI half-width exceeds this fraction of the estimate. */
    underpowered_fraction: z.number().positive().default(0.5),
    /** Bootstrap resamples per interval (study: 5,000). */
    resamples: z.number().int().min(100).default(5000),
    density: DensitySpecSchema.optional(),
    replay: ReplaySpecSchema.optional(),
    lazy: LazySpecSchema.optional(),
    agent: AgentSpecSchema.optional(),
    isolation: IsolationSpecSchema.optional(),
    checkpoint: CheckpointSpecSchema.optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    if (spec.experiment === 'command' && !spec.task.argv) {
      ctx.addIssue({ code: 'custom', path: ['task', 'argv'], message: 'the command kind needs task.argv (the command to time)' });
    }
    const labels = spec.arms.map((arm) => (arm.variant ? `${arm.backend}:${arm.variant}` : arm.backend));
    const duplicate = labels.find((label, index) => labels.indexOf(label) !== index);
    if (duplicate) ctx.addIssue({ code: 'custom', path: ['arms'], message: `arm "${duplicate}" is listed twice` });
  });

export type SpecInput = z.input<typeof SpecSchema>;
export type Spec = z.output<typeof SpecSchema>;
export type ArmSpec = z.output<typeof ArmSpecSchema>;
export type ComparisonSpec = z.output<typeof ComparisonSpecSchema>;
