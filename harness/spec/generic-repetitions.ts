/**
 * Kinds that repeat their cells with a field of their own (`KindSpec.repeatsWith`) take no generic
 * `trials` or `warmups`. Giving one anyway used to be silently ignored, so `trials: 30` on a rollout
 * spec ran one block and reported it as if it were thirty; now it is refused, naming the field that
 * does repeat the kind. The neutral values (trials 1, warmups 0) stay accepted, as shipped specs
 * written before the generic fields had defaults spell them, and are what such a kind gets when the
 * spec leaves the fields out: the generic defaults (30 trials, 3 warmups) would land in
 * resolved-spec.json and the evidence's condition as repetitions that never ran.
 */
import type { KindSpec, SpecIssue } from './kind-spec.ts';

const NEUTRAL = { trials: 1, warmups: 0 } as const;

/** The generic repetition fields as given (in the YAML, or on the command line); undefined = not given. */
export interface GivenRepetitions {
  trials?: unknown;
  warmups?: unknown;
}

/** The spec document with an absent trials/warmups set to the neutral value when its kind repeats with its own field. */
export function withNeutralRepetitions(kind: KindSpec | undefined, document: unknown): unknown {
  if (!kind?.repeatsWith || document === null || typeof document !== 'object' || Array.isArray(document)) return document;
  const given = document as Record<string, unknown>;
  return { ...given, trials: given.trials ?? NEUTRAL.trials, warmups: given.warmups ?? NEUTRAL.warmups };
}

export function genericRepetitionIssues(kind: KindSpec | undefined, experiment: string, given: GivenRepetitions): SpecIssue[] {
  if (!kind?.repeatsWith) return [];
  return (Object.keys(NEUTRAL) as (keyof typeof NEUTRAL)[])
    .filter((field) => given[field] !== undefined && given[field] !== NEUTRAL[field])
    .map((field) => ({
      path: [field],
      message: `the ${experiment} kind does not repeat with ${field} (it would be ignored); set ${kind.repeatsWith} instead and remove ${field}`,
    }));
}
