/** Experiment kind → implementation. One line per kind. */
import type { ExperimentKind } from '../harness/spec/schema.ts';
import type { Experiment } from './experiment.ts';
import { commandExperiment } from './command/command-kind.ts';
import { shellReadyExperiment } from './shell-ready/shell-ready-kind.ts';
import { repairExperiment } from './repair/repair-kind.ts';
import { densityExperiment } from './density/density-experiment.ts';
import { replayExperiment } from './replay/replay-experiment.ts';
import { isolationExperiment } from './isolation/isolation-kind.ts';
import { lazyImageExperiment } from './lazy-image/lazy-image-experiment.ts';

export const EXPERIMENTS: Partial<Record<ExperimentKind, Experiment>> = {
  'shell-ready': shellReadyExperiment,
  command: commandExperiment,
  repair: repairExperiment,
  density: densityExperiment,
  replay: replayExperiment,
  isolation: isolationExperiment,
  'lazy-image': lazyImageExperiment,
};
