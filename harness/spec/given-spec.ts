/**
 * The spec `run` resolves from a spec file and its command-line overrides before it probes any
 * backend: loaded, overridden (re-validated), every path made absolute. `run` and campaign
 * adoption both call this, so "what this entry would run" can never drift from what `run` records.
 */
import { loadSpec, type LoadedSpec } from './load-spec.ts';
import { applyOverrides, type SpecOverrides } from './resolve-spec.ts';
import { resolveArmBuilds } from './arm-build-check.ts';
import { resolveBackendPaths } from './backend-paths.ts';
import type { SpecKinds } from './kind-spec.ts';
import type { Spec } from './schema.ts';
import { specPathResolver } from './spec-paths.ts';

export function resolveGivenSpec(specPath: string, overrides: SpecOverrides, kinds: SpecKinds): { loaded: LoadedSpec; spec: Spec } {
  const loaded = loadSpec(specPath, kinds);
  const given = applyOverrides(specPath, loaded.spec, overrides, kinds);
  // Build binaries, image tars and backend modules must exist now (UserError naming file and field); paths become absolute.
  const backends = resolveBackendPaths(specPath, given.backends);
  const withBuilds: Spec = { ...given, arms: resolveArmBuilds(specPath, given.arms), ...(backends ? { backends } : {}) };
  return { loaded, spec: resolveSpecPaths(specPath, withBuilds, kinds) };
}

/** task.workspace and the kind section's own paths, absolute (harness/spec/spec-paths.ts says against what). */
function resolveSpecPaths(specPath: string, spec: Spec, kinds: SpecKinds): Spec {
  const resolvePath = specPathResolver(specPath);
  const task = spec.task.workspace ? { ...spec.task, workspace: resolvePath(spec.task.workspace) } : spec.task;
  const section = kinds.spec(spec.experiment)?.section;
  const key = section?.key;
  if (!section?.paths || key === undefined || !(key in spec)) return { ...spec, task };
  return { ...spec, task, [key]: section.paths((spec as Record<string, unknown>)[key], resolvePath) };
}
