import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where caches (images, kernels) and per-run scratch live: $SANDBENCH_HOME or ~/.cache/sandbench. */
export function stateDir(): string {
  return process.env.SANDBENCH_HOME ?? join(homedir(), '.cache', 'sandbench');
}

/** Root of the project checkout (for data/, scripts/). */
export const PROJECT_ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
