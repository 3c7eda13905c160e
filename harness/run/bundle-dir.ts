import { accessSync, constants, existsSync, mkdirSync, readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../errors.ts';

/** A run needs room for its journal, CSVs and report; refuse before any trial when there is clearly none. */
const MIN_FREE_BYTES = 64 * 1024 * 1024;

/** A run id that sorts by time and says what ran; unique enough for one machine (random suffix). */
export function newRunId(specName: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const slug = specName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24);
  return `${stamp}-${slug}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Create the bundle directory, or fail with a clear error before any trial runs. */
export function prepareBundleDir(dir: string, { allowExisting }: { allowExisting: boolean }): void {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    throw new UserError(`--out ${dir}: cannot create the bundle directory (${(error as NodeJS.ErrnoException).code}); choose a writable path`);
  }
  try {
    accessSync(dir, constants.W_OK);
  } catch {
    throw new UserError(`--out ${dir}: the directory is not writable; choose a writable path`);
  }
  if (!allowExisting && readdirSync(dir).length > 0) {
    throw new UserError(`--out ${dir}: the directory is not empty; give a new directory, or --resume ${dir} to continue that run`);
  }
  const stats = statfsSync(dir);
  const free = stats.bavail * stats.bsize;
  if (free < MIN_FREE_BYTES) {
    throw new UserError(`--out ${dir}: only ${Math.round(free / 1048576)} MiB free; a run needs at least ${MIN_FREE_BYTES / 1048576} MiB — free space or choose another disk`);
  }
}

export function bundleExists(dir: string): boolean {
  return existsSync(join(dir, 'plan.json')) && existsSync(join(dir, 'resolved-spec.json'));
}
