/**
 * Quick-use overrides from the command line (`--arms`, `--trials`, ...) applied on top of the spec.
 * Every override is recorded in resolved-spec.json so the bundle says exactly what ran.
 */
import { createHash } from 'node:crypto';
import { UserError } from '../errors.ts';
import { armLabel } from './arm-label.ts';
import type { KindOverrides, SpecKinds } from './kind-spec.ts';
import type { Spec } from './schema.ts';
import { genericRepetitionIssues } from './generic-repetitions.ts';
import { parseSpecDocument } from './load-spec.ts';

/** Generic overrides, plus the knobs a kind may honour (KindOverrides: --concurrency, --batches). */
export interface SpecOverrides extends KindOverrides {
  arms?: string[];
  trials?: number;
  warmups?: number;
  seed?: number;
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
  /** Generic fields neither the spec nor an override gave, filled by harness/spec/spec-defaults.ts (a random seed among them). */
  defaulted?: string[];
  spec: Spec;
}

/** Select arms by label (`backend` or `backend:variant`); an arm not in the spec may be added by backend name. */
function selectArms(spec: Spec, labels: string[]): Spec['arms'] {
  return labels.map((label) => {
    const existing = spec.arms.find((arm) => armLabel(arm) === label);
    if (existing) return existing;
    const [backend, variant] = label.split(':');
    return { backend, variant } as Spec['arms'][number];
  });
}

export function applyOverrides(file: string, spec: Spec, overrides: SpecOverrides, kinds: SpecKinds): Spec {
  const where = `${file} (with command-line overrides)`;
  const ignored = genericRepetitionIssues(kinds.spec(spec.experiment), spec.experiment, { trials: overrides.trials, warmups: overrides.warmups });
  if (ignored.length > 0) throw new UserError(`${where}: --${ignored[0]!.path[0]}: ${ignored[0]!.message}`);
  const candidate: Record<string, unknown> = { ...structuredClone(spec), timeout: `${spec.timeout}ms` };
  if (overrides.arms) candidate.arms = selectArms(spec, overrides.arms);
  if (overrides.trials !== undefined) candidate.trials = overrides.trials;
  if (overrides.warmups !== undefined) candidate.warmups = overrides.warmups;
  if (overrides.seed !== undefined) candidate.seed = overrides.seed;
  const section = kinds.spec(spec.experiment)?.section;
  const kindOverrides: KindOverrides = { ...(overrides.concurrency ? { concurrency: overrides.concurrency } : {}), ...(overrides.batches !== undefined ? { batches: overrides.batches } : {}) };
  if (section) {
    // Parsed sections hold durations in ms and sizes in MiB; the kind turns them back into input units.
    const parsed = candidate[section.key];
    let input = (parsed === undefined ? {} : (section.encode?.(parsed) ?? parsed)) as Record<string, unknown>;
    if (Object.keys(kindOverrides).length > 0) {
      if (!section.applyOverrides) throw new UserError(`${where}: --${Object.keys(kindOverrides)[0]}: the ${spec.experiment} kind has no such setting (remove the option)`);
      input = section.applyOverrides(input, kindOverrides);
    }
    candidate[section.key] = input;
  } else if (Object.keys(kindOverrides).length > 0) {
    throw new UserError(`${where}: --${Object.keys(kindOverrides)[0]}: the ${spec.experiment} kind has no such setting (remove the option)`);
  }
  // Re-validate so an override can never produce a spec the schema would reject.
  return parseSpecDocument(where, candidate, kinds);
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
