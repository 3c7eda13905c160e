/**
 * The spec `run` resolves from a spec file and its command-line overrides before it probes any
 * backend: loaded, overridden (re-validated), arm build paths made absolute. `run` and campaign
 * adoption both call this, so "what this entry would run" can never drift from what `run` records.
 */
import { loadSpec, type LoadedSpec } from './load-spec.ts';
import { applyOverrides, type SpecOverrides } from './resolve-spec.ts';
import { resolveArmBuilds } from './arm-build-check.ts';
import { resolveBackendPaths } from './backend-paths.ts';
import type { SpecKinds } from './kind-spec.ts';
import type { Spec } from './schema.ts';

export function resolveGivenSpec(specPath: string, overrides: SpecOverrides, kinds: SpecKinds): { loaded: LoadedSpec; spec: Spec } {
  const loaded = loadSpec(specPath, kinds);
  const given = applyOverrides(specPath, loaded.spec, overrides, kinds);
  // Build binaries, image tars and backend modules must exist now (UserError naming file and field); paths become absolute.
  const backends = resolveBackendPaths(specPath, given.backends);
  return { loaded, spec: { ...given, arms: resolveArmBuilds(specPath, given.arms), ...(backends ? { backends } : {}) } };
}
