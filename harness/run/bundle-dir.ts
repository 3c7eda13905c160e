import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, statfsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../errors.ts';

/** A run needs room for its journal, CSVs and report; refuse before any trial when there is clearly none. */
const MIN_FREE_BYTES = 64 * 1024 * 1024;

/** A run id that sorts by time and says what ran; unique enough for one machine (random suffix). */
export function newRunId(specName: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const slug = specName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24);
  return `${stamp}-${slug}-${Math.random().toString(36).slice(2, 6)}`;
}

/** statfs f_type of kernel pseudo-filesystems, where no bundle can live (linux/magic.h). */
const PSEUDO_FILESYSTEMS: Record<number, string> = {
  0x9fa0: 'procfs', 0x62656572: 'sysfs', 0x27e0eb: 'cgroupfs', 0x63677270: 'cgroup2fs', 0x1cd1: 'devpts', 0x64626720: 'debugfs', 0x73636673: 'securityfs', 0x74726163: 'tracefs', 0x6e736673: 'nsfs', 0xcafe4a11: 'bpffs',
};

/**
 * mkdir -p done one level at a time from the nearest existing ancestor. Node's recursive mkdirSync
 * loops forever on procfs (mkdir there fails with ENOENT although the parent exists, so it retries
 * the parent); this walk checks the ancestor's filesystem first and stops at the first error.
 */
function makeDirChain(dir: string): void {
  const missing: string[] = [];
  let existing = resolve(dir);
  while (!existsSync(existing)) {
    missing.unshift(existing);
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  const pseudo = PSEUDO_FILESYSTEMS[statfsSync(existing).type];
  if (pseudo) throw new UserError(`--out ${dir}: ${existing} is on ${pseudo}, a kernel pseudo-filesystem where a bundle cannot be written; choose a directory on a real disk (e.g. runs/<name>)`);
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      throw new UserError(`--out ${dir}: cannot create ${path} (${code}); choose a writable path`);
    }
  }
}

/** Create the bundle directory, or fail with a clear error before any trial runs. */
export function prepareBundleDir(dir: string, { allowExisting }: { allowExisting: boolean }): void {
  makeDirChain(dir);
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

/**
 * Why `--resume dir` cannot continue, said so the user knows what to do: no directory, or a run
 * stopped before its plan was written (nothing was recorded, so the fix is to start again).
 */
export function resumeRefusal(dir: string): string {
  if (!existsSync(dir)) return `--resume ${dir}: no such directory; give the bundle directory a run printed (runs/<run-id>)`;
  const specCopy = join(dir, 'spec.yaml');
  if (!existsSync(specCopy)) return `--resume ${dir}: not a sandbench bundle (no spec.yaml, plan.json or resolved-spec.json); give the directory \`sandbench run\` printed`;
  let specPath: string | null = null;
  try {
    specPath = (JSON.parse(readFileSync(join(dir, 'resolved-spec.json'), 'utf8')) as { spec_path?: string }).spec_path ?? null;
  } catch {
    // killed before resolved-spec.json: only the spec copy is there
  }
  const start = specPath && existsSync(specPath)
    ? `rm -r ${dir} && sandbench run ${specPath} --out ${dir}`
    : `cp ${specCopy} ./spec.yaml && rm -r ${dir} && sandbench run ./spec.yaml --out ${dir}`;
  return `--resume ${dir}: nothing was recorded — the run stopped before its plan was written, so no trial ran. Start it again (with the same options): ${start}`;
}

export function bundleExists(dir: string): boolean {
  return existsSync(join(dir, 'plan.json')) && existsSync(join(dir, 'resolved-spec.json'));
}
