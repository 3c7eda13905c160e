/** Experiment kind → implementation. One line per kind. */
import type { ExperimentKind } from '../harness/spec/schema.ts';
import type { Experiment } from '../harness/contracts/experiment-kind.ts';
import { commandExperiment } from './command/command-kind.ts';
import { shellReadyExperiment } from './shell-ready/shell-ready-kind.ts';
import { repairExperiment } from './repair/repair-kind.ts';
import { densityExperiment } from './density/density-kind.ts';
import { replayExperiment } from './replay/replay-kind.ts';
import { isolationExperiment } from './isolation/isolation-kind.ts';
import { lazyImageExperiment } from './lazy-image/lazy-image-kind.ts';
import { agentExperiment } from './agent/agent-kind.ts';
import { checkpointExperiment } from './checkpoint/checkpoint-kind.ts';

export const EXPERIMENTS: Partial<Record<ExperimentKind, Experiment>> = {
  'shell-ready': shellReadyExperiment,
  command: commandExperiment,
  repair: repairExperiment,
  density: densityExperiment,
  replay: replayExperiment,
  isolation: isolationExperiment,
  'lazy-image': lazyImageExperiment,
  agent: agentExperiment,
  checkpoint: checkpointExperiment,
};
