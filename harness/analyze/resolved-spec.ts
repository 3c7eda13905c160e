/**
 * resolved-spec.json as the run wrote it (type from harness/spec/resolve-spec.ts). The spec inside
 * is already the parsed form (durations in ms, sizes in MiB), so it is not re-parsed with SpecSchema
 * (that would read a number of ms as seconds); only the fields analysis relies on are checked, at the edge.
 */
import { z } from 'zod';
import type { ResolvedSpec } from '../spec/resolve-spec.ts';

export type { ResolvedSpec } from '../spec/resolve-spec.ts';

/** Bad bundle input (missing file, malformed JSON, a comparison naming an unknown arm): the CLI exits 2. */
export class AnalysisInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnalysisInputError';
  }
}

const EnvelopeSchema = z
  .object({
    run_id: z.string().min(1),
    spec_path: z.string(),
    spec_sha256: z.string(),
    overrides: z.record(z.string(), z.unknown()).default({}),
    skipped_arms: z.array(z.object({ arm: z.string(), reason: z.string() }).loose()).default([]),
    /** Arm labels the plan actually schedules (differs from spec.arms for kinds whose arms are subjects, e.g. replay). */
    plan_arms: z.array(z.string()).optional(),
    spec: z
      .object({
        name: z.string().min(1),
        experiment: z.string().min(1),
        arms: z.array(z.object({ backend: z.string(), variant: z.string().optional() }).loose()).min(1),
        warmups: z.number().int().nonnegative(),
        trials: z.number().int().positive(),
        seed: z.number().int(),
        resamples: z.number().int().positive().default(5000),
        underpowered_fraction: z.number().positive().default(0.5),
        controls: z.object({ cpus: z.string().optional(), memory: z.number().optional(), swap: z.number().default(0) }).loose().default({ swap: 0 }),
        compare: z.array(z.object({ candidate: z.string(), control: z.string(), metric: z.string() })).optional(),
      })
      .loose(),
  })
  .loose();

export function parseResolvedSpec(json: unknown, file = 'resolved-spec.json'): ResolvedSpec {
  const parsed = EnvelopeSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AnalysisInputError(`${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data as unknown as ResolvedSpec;
}
