/**
 * The kind catalog analysis is handed (kind name → descriptor), from the one kind registry. Loaded
 * lazily: only commands that analyse pay for importing the kinds.
 */
import { analyzeBundle, type AnalyzeBundleResult, type KindCatalog } from '../harness/analyze/index.ts';
import { UserError } from '../harness/errors.ts';
import { armLabel } from '../harness/journal/trial-record.ts';
import type { SpecKinds } from '../harness/spec/kind-spec.ts';
import type { Spec } from '../harness/spec/schema.ts';

export async function kindCatalog(): Promise<KindCatalog> {
  const { EXPERIMENTS } = await import('../experiments/registry.ts');
  return (kind) => (Object.hasOwn(EXPERIMENTS, kind) ? EXPERIMENTS[kind] : undefined);
}

/**
 * A bundle read and analysed in memory for a rendering command (report, compare, gate, reproduce);
 * its CSVs are (re)written only when asked, e.g. when a copied bundle lacks them.
 */
export async function analyzedBundle(dir: string, options: { write?: boolean } = {}): Promise<AnalyzeBundleResult> {
  return analyzeBundle(dir, await kindCatalog(), { write: options.write ?? false });
}

/**
 * What resolving a spec as `run` does needs from the kinds (`reproduce --campaign --adopt` checks a
 * bundle against it): their spec sections and the arm labels each kind's plan schedules.
 */
export async function specCatalog(): Promise<{ specKinds: SpecKinds; planArms(spec: Spec): string[] }> {
  const { EXPERIMENTS, SPEC_KINDS } = await import('../experiments/registry.ts');
  return {
    specKinds: SPEC_KINDS,
    planArms(spec) {
      const kind = Object.hasOwn(EXPERIMENTS, spec.experiment) ? EXPERIMENTS[spec.experiment] : undefined;
      if (!kind) throw new UserError(`experiment: the "${spec.experiment}" kind is not available in this build`);
      return kind.plan(spec).arms.map(armLabel);
    },
  };
}
