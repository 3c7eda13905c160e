/** Experiment kind → implementation. One line per kind. */
import type { Experiment } from '../harness/contracts/experiment-kind.ts';
import type { SpecKinds } from '../harness/spec/kind-spec.ts';
import { parseGivenSpec, loadSpec, type LoadedSpec } from '../harness/spec/load-spec.ts';
import type { Spec } from '../harness/spec/schema.ts';
import { BUILTIN_CATALOG } from '../executors/registry.ts';
import { commandExperiment } from './command/command-kind.ts';
import { shellReadyExperiment } from './shell-ready/shell-ready-kind.ts';
import { repairExperiment } from './repair/repair-kind.ts';
import { densityExperiment } from './density/density-kind.ts';
import { replayExperiment } from './replay/replay-kind.ts';
import { isolationExperiment } from './isolation/isolation-kind.ts';
import { lazyImageExperiment } from './lazy-image/lazy-image-kind.ts';
import { agentExperiment } from './agent/agent-kind.ts';
import { rolloutExperiment } from './rollout/rollout-kind.ts';
import { checkpointExperiment } from './checkpoint/checkpoint-kind.ts';
import { runCodeExperiment } from './run-code/run-code-kind.ts';
import { rolloutStepExperiment } from './rollout-step/rollout-step-kind.ts';

export const EXPERIMENTS: Readonly<Record<string, Experiment>> = {
  'shell-ready': shellReadyExperiment,
  command: commandExperiment,
  repair: repairExperiment,
  density: densityExperiment,
  replay: replayExperiment,
  isolation: isolationExperiment,
  'lazy-image': lazyImageExperiment,
  agent: agentExperiment,
  rollout: rolloutExperiment,
  checkpoint: checkpointExperiment,
  'run-code': runCodeExperiment,
  'rollout-step': rolloutStepExperiment,
};

/** The spec loader's view of the registry: kind names and each kind's spec section and rules. */
export const SPEC_KINDS: SpecKinds = {
  names: Object.keys(EXPERIMENTS),
  spec: (kind) => (Object.hasOwn(EXPERIMENTS, kind) ? EXPERIMENTS[kind]!.spec : undefined),
  backends: { names: BUILTIN_CATALOG.names, traits: (name) => BUILTIN_CATALOG.get(name)?.traits },
};

/** A spec document (e.g. an object literal in a test or bench) validated exactly as a YAML file would be. */
export function parseSpec(document: unknown, file = '(inline spec)'): Spec {
  return parseGivenSpec(file, document, SPEC_KINDS);
}

/** A spec file loaded with every kind of this build. */
export function loadKindSpec(file: string): LoadedSpec {
  return loadSpec(file, SPEC_KINDS);
}
