/**
 * The generic experiment spec: the fields every kind shares. Each kind's own section (`density:`,
 * `agent:`, ...) is defined in the kind's folder (kind-spec.ts) and validated by the loader
 * (load-spec.ts), which also rejects every key that is neither generic nor the kind's section.
 * Unknown keys are rejected everywhere else (`.strict()`), so a typo is an error, not a silent default.
 */
import { z } from 'zod';
import { ARM_LABEL_PATTERN, armLabel, defaultArmLabel } from './arm-label.ts';
import { ArmBuildSchema } from './arm-build.ts';
import { BackendDeclarationsSchema } from './backend-declaration.ts';
import { cpuList, duration, size } from './fields.ts';
import { LimitsSchema } from '../plan/plan-bounds.ts';
import { expandArmShorthand, randomSeed, SPEC_DEFAULTS } from './spec-defaults.ts';

export const ArmSpecSchema = z
  .object({
    /** A built-in backend or one the spec's `backends:` declares (the loader checks the name and the build fields). */
    backend: z.string().regex(/^[a-z][a-z0-9-]*$/, 'expected a backend name (lower-case letters, digits and dashes)'),
    variant: z.string().min(1).optional(),
    /** The arm's own name (harness/spec/arm-label.ts), independent of variant and build; default backend[-runtime][:variant]. */
    label: z.string().regex(ARM_LABEL_PATTERN, 'expected an arm label (lower-case letters, digits, dots, dashes, underscores), e.g. podman-crun').optional(),
    /** What this arm runs that its backend's other arms do not (harness/spec/arm-build.ts). */
    build: ArmBuildSchema.optional(),
  })
  .strict()
  // Filled in once, so resolved-spec.json and every record say the label the arm ran under.
  .transform((arm) => {
    const label = arm.label ?? defaultArmLabel(arm);
    return label ? { ...arm, label } : arm;
  });

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
    /** Baseline workspace fixture: a directory (relative to the spec file, a shipped data/fixtures one, or absolute), or empty. */
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

/** The generic fields; keys beyond them are kind sections, checked by the loader against the kind catalog. */
export const BaseSpecSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    /** The experiment kind; the loader checks it against the kinds this build has. */
    experiment: z.string().min(1),
    /** Each arm an object, or its label alone (`host`, `host:v1`): spec-defaults.ts. */
    arms: z.array(z.preprocess(expandArmShorthand, ArmSpecSchema)).min(1),
    warmups: z.number().int().nonnegative().default(SPEC_DEFAULTS.warmups),
    trials: z.number().int().positive().default(SPEC_DEFAULTS.trials),
    /** Absent: drawn at random, printed at run start and recorded in resolved-spec.json. */
    seed: z.number().int().nonnegative().default(randomSeed),
    /** prefault: the default goes through the duration parser like a written value. */
    timeout: duration.prefault(SPEC_DEFAULTS.timeout),
    controls: ControlsSchema.default({ swap: 0 }),
    image: ImageSpecSchema.default({
      suite: 'bookworm',
      packages: ['python3', 'git', 'busybox', 'ca-certificates'],
      source_date_epoch: 1761955200,
    }),
    task: TaskSpecSchema.default({ env: {} }),
    compare: z.array(ComparisonSpecSchema).optional(),
    /** Sandboxes this spec declares (a command template or a plugin module): harness/spec/backend-declaration.ts. */
    backends: BackendDeclarationsSchema.optional(),
    /** Flag a comparison `underpowered` when its CI half-width exceeds this fraction of the estimate. */
    underpowered_fraction: z.number().positive().default(0.5),
    /** Bootstrap resamples per interval (study: 5,000). */
    resamples: z.number().int().min(100).default(5000),
    /** Raise a plan-size limit on purpose (harness/plan/plan-bounds.ts: planned_trials, concurrency, resamples). */
    limits: LimitsSchema.optional(),
  })
  .catchall(z.unknown())
  .superRefine((spec, ctx) => {
    const labels = spec.arms.map(armLabel);
    const duplicate = labels.find((label, index) => labels.indexOf(label) !== index);
    if (duplicate) ctx.addIssue({ code: 'custom', path: ['arms'], message: `arm "${duplicate}" is listed twice (give each a label of its own, e.g. label: ${duplicate.replace(/[^a-z0-9._-]+/g, '-')}-2)` });
  });

export type SpecInput = z.input<typeof BaseSpecSchema>;
/** A loaded spec: the generic fields parsed, plus its kind's section parsed under the section's key. */
export type Spec = z.output<typeof BaseSpecSchema>;
export type ArmSpec = z.output<typeof ArmSpecSchema>;
export type ComparisonSpec = z.output<typeof ComparisonSpecSchema>;
