/**
 * Quick-use overrides from the command line (`--arms`, `--trials`, ...) applied on top of the spec.
 * Every override is recorded in resolved-spec.json so the bundle says exactly what ran.
 */
import { createHash } from 'node:crypto';
import { UserError } from '../errors.ts';
import { SpecSchema, type Spec } from './schema.ts';
import { formatSpecIssues } from './load-spec.ts';

export interface SpecOverrides {
  arms?: string[];
  trials?: number;
  warmups?: number;
  seed?: number;
  concurrency?: number[];
  batches?: number;
}

export interface ResolvedSpec {
  run_id: string;
  spec_path: string;
  spec_sha256: string;
  overrides: SpecOverrides;
  /** Arms dropped because their backend is not available here, with the reason. */
  skipped_arms: { arm: string; reason: string }[];
  /** Arm labels the plan schedules; for kinds whose arms are subjects (replay, lazy-image) these differ from spec.arms. */
  plan_arms?: string[];
  spec: Spec;
}

function armLabelOf(arm: Spec['arms'][number]): string {
  return arm.variant ? `${arm.backend}:${arm.variant}` : arm.backend;
}

/** Select arms by label (`backend` or `backend:variant`); an arm not in the spec may be added by backend name. */
function selectArms(spec: Spec, labels: string[]): Spec['arms'] {
  return labels.map((label) => {
    const existing = spec.arms.find((arm) => armLabelOf(arm) === label);
    if (existing) return existing;
    const [backend, variant] = label.split(':');
    return { backend, variant } as Spec['arms'][number];
  });
}

export function applyOverrides(file: string, spec: Spec, overrides: SpecOverrides): Spec {
  const candidate: Record<string, unknown> = { ...spec };
  if (overrides.arms) candidate.arms = selectArms(spec, overrides.arms);
  if (overrides.trials !== undefined) candidate.trials = overrides.trials;
  if (overrides.warmups !== undefined) candidate.warmups = overrides.warmups;
  if (overrides.seed !== undefined) candidate.seed = overrides.seed;
  if (overrides.concurrency || overrides.batches !== undefined) {
    candidate.density = { ...(spec.density ?? {}), ...(overrides.concurrency ? { concurrency: overrides.concurrency } : {}), ...(overrides.batches !== undefined ? { batches: overrides.batches } : {}) };
  }
  // Re-validate so an override can never produce a spec the schema would reject.
  const parsed = SpecSchema.safeParse(reencode(candidate));
  if (!parsed.success) throw new UserError(formatSpecIssues(`${file} (with command-line overrides)`, parsed.error));
  return parsed.data;
}

/** Parsed specs hold durations in ms and sizes in MiB; turn them back into schema input units. */
function reencode(spec: Record<string, unknown>): Record<string, unknown> {
  const out = structuredClone(spec);
  out.timeout = `${out.timeout as number}ms`;
  const density = out.density as Record<string, unknown> | undefined;
  if (density && typeof density.ready_timeout === 'number') density.ready_timeout = `${density.ready_timeout}ms`;
  const agent = out.agent as Record<string, unknown> | undefined;
  if (agent && typeof agent.init_deadline === 'number') agent.init_deadline = `${agent.init_deadline}ms`;
  return out;
}

export function specSha256(source: string): string {
  return `sha256:${createHash('sha256').update(source).digest('hex')}`;
}

/**
 * Declared comparisons whose candidate or control arm is not in this run (dropped by --arms or
 * skipped as unavailable) cannot be computed; they are removed and reported, never silently.
 */
export function pruneComparisons(spec: Spec, planArms: readonly string[]): { spec: Spec; dropped: NonNullable<Spec['compare']> } {
  if (!spec.compare) return { spec, dropped: [] };
  const labels = new Set(planArms);
  const kept = spec.compare.filter((c) => labels.has(c.candidate) && labels.has(c.control));
  const dropped = spec.compare.filter((c) => !kept.includes(c));
  return { spec: { ...spec, compare: kept }, dropped };
}
