import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where caches (images, kernels) and per-run scratch live: $SANDBENCH_HOME or ~/.cache/sandbench. */
export function stateDir(): string {
  return process.env.SANDBENCH_HOME ?? join(homedir(), '.cache', 'sandbench');
}

/** Root of the project checkout (for data/, scripts/). */
export const PROJECT_ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** The one per-run scratch directory: every scratch path of a run lives below it, named with the run id so `clean` finds it. */
export function runScratchDir(stateDirectory: string, runId: string): string {
  return join(stateDirectory, 'tmp', `sandbench-${runId}`);
}
