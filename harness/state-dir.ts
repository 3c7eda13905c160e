import { existsSync, realpathSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { MEMORY_SCRATCH_ROOT } from './run/memory-scratch.ts';

/** Where caches (images, kernels, the private dockerd) and run locks live: $SANDBENCH_HOME or ~/.cache/sandbench. */
export function stateDir(): string {
  return process.env.SANDBENCH_HOME ?? defaultStateDir();
}

function defaultStateDir(): string {
  return join(homedir(), '.cache', 'sandbench');
}

/**
 * Default root of per-run scratch (workspaces, fixtures): outside $HOME, because where a fixture
 * sits is a control — pVisor's rootless executor passes writes under the home directory through by
 * its home policy, so fixtures under ~/.cache made its boundary look open (issue 20). Per uid, so
 * two users never share one directory in /var/tmp.
 */
export const DEFAULT_FIXTURE_ROOT = join('/var/tmp', `sandbench-fixtures-${process.getuid?.() ?? 'user'}`);

/**
 * Root of per-run scratch for a state dir: $SANDBENCH_FIXTURES, else DEFAULT_FIXTURE_ROOT for the
 * default state dir, else `$SANDBENCH_HOME/tmp` — an explicit state dir keeps its scratch beside it,
 * so one state dir (whose run locks `clean` trusts) always pairs with one scratch root.
 */
export function fixtureRoot(stateDirectory: string = stateDir()): string {
  if (process.env.SANDBENCH_FIXTURES) return resolve(process.env.SANDBENCH_FIXTURES);
  return resolve(stateDirectory) === resolve(defaultStateDir()) ? DEFAULT_FIXTURE_ROOT : join(stateDirectory, 'tmp');
}

/**
 * Every root `clean` scans for `sandbench-<run>` scratch dirs: the current one, `<state dir>/tmp`
 * (older builds), the two placement roots the isolation kind may use besides the run's own, and the
 * in-memory root of the harness's own per-attempt files (run/memory-scratch.ts).
 */
export function scratchRoots(stateDirectory: string = stateDir()): string[] {
  return [...new Set([fixtureRoot(stateDirectory), join(stateDirectory, 'tmp'), homeFixtureRoot(), DEFAULT_FIXTURE_ROOT, MEMORY_SCRATCH_ROOT])];
}

/** A fixture root inside $HOME (the isolation kind's `inside-home` placement; the pre-issue-20 default). */
export function homeFixtureRoot(): string {
  return join(defaultStateDir(), 'tmp');
}

export type PathClass = 'inside-home' | 'tmp' | 'other';

/** Real path of `path`, or of its nearest existing ancestor joined with the rest (the dir may not exist yet). */
function realish(path: string): string {
  const absolute = resolve(path);
  if (existsSync(absolute)) return realpathSync(absolute);
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(realish(parent), absolute.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
}

const under = (path: string, root: string) => path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);

/** Where a path sits relative to the home directory and the temp dirs (recorded with every fixture root). */
export function pathClass(path: string, home: string = homedir()): PathClass {
  const real = realish(path);
  if (under(real, realish(home))) return 'inside-home';
  if (['/tmp', '/var/tmp', '/dev/shm', tmpdir()].some((root) => under(real, realish(root)))) return 'tmp';
  return 'other';
}

/** Root of the project checkout (for data/, scripts/). */
export const PROJECT_ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

/** The one per-run scratch directory: every scratch path of a run lives below it, named with the run id so `clean` finds it. */
export function runScratchDir(stateDirectory: string, runId: string): string {
  return join(fixtureRoot(stateDirectory), `sandbench-${runId}`);
}
