import { z } from 'zod';
import { armLabel } from '../spec/arm-label.ts';

/** Version of the journal line format; bump on any incompatible change and keep a loader for old ones. */
export const TRIAL_SCHEMA_VERSION = 1;

export const OUTCOMES = ['ok', 'invalid', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Why a trial did not count. `task_failed` is the task's own fault; everything else is
 * infrastructure and is reported apart from task failures (architecture doc, "Trial record").
 * `interrupted` marks a trial that was in flight when the harness was killed (resume re-runs it);
 * `killed_externally` a sandbox killed from outside mid-trial (`podman kill`, `docker kill`): the
 * engine logged a kill the harness never sent, so it is not the task's fault. `task_invalid`: the task
 * itself was proved unsolvable before the attempt (its gold solution fails its own tests), so the
 * attempt says nothing about the agent or the substrate. `not_applicable`: the kind's descriptors say
 * this cell cannot run on its backend (fork where the backend's checkpoint mechanism cannot carry an
 * attempt): never run, in the planned denominator, and neither an infrastructure nor a task failure.
 */
export const FAILURE_CATEGORIES = [
  'task_failed',
  'setup_failed',
  'isolation_refused',
  'recording_failed',
  'upstream_failed',
  'timeout',
  'oom',
  'harness_error',
  'interrupted',
  'killed_externally',
  'task_invalid',
  'not_applicable',
] as const;
export type FailureCategory = (typeof FAILURE_CATEGORIES)[number];

/** The one category counted neither as infrastructure nor as task (typed, so a misspelling fails tsc). */
export const NOT_APPLICABLE: FailureCategory = 'not_applicable';

export const INFRASTRUCTURE_FAILURES: ReadonlySet<FailureCategory> = new Set([
  'setup_failed',
  'isolation_refused',
  'recording_failed',
  'upstream_failed',
  'timeout',
  'harness_error',
  'interrupted',
  'killed_externally',
  'task_invalid',
]);

/** `label`: the arm's own name when it has one (absent on records written before labels: they read as backend[:variant]). */
export const ArmSchema = z.object({ backend: z.string(), variant: z.string().nullable(), label: z.string().optional() });
export type ArmRef = z.infer<typeof ArmSchema>;

/** Re-exported: journal readers name arms the way the spec does. */
export { armLabel };

export const TrialRecordSchema = z
  .object({
    run_id: z.string(),
    schema_version: z.literal(TRIAL_SCHEMA_VERSION),
    experiment: z.string(),
    arm: ArmSchema,
    block: z.number().int().nonnegative(),
    position: z.number().int().nonnegative(),
    trial_id: z.string(),
    warmup: z.boolean(),
    seed: z.number().int(),
    outcome: z.enum(OUTCOMES),
    failure_category: z.enum(FAILURE_CATEGORIES).nullable(),
    exit_code: z.number().int().nullable(),
    t_spawn_ns: z.string().nullable(),
    ready_ms: z.number().nullable(),
    result_ms: z.number().nullable(),
    completion_ms: z.number().nullable(),
    /** Every timed or counted metric of the trial, by name (ready_ms etc. repeated here for uniform analysis). */
    metrics: z.record(z.string(), z.number()),
    validity: z.record(z.string(), z.enum(['pass', 'fail'])),
    notes: z.array(z.string()),
    /** Kind-specific facts (accelerator, candidate files, cgroup paths...). Free-form, never analysed as timing. */
    facts: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

export type TrialRecord = z.infer<typeof TrialRecordSchema>;
