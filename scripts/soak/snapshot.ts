/**
 * One reading of everything the soak watches, as raw facts (I/O only; scripts/soak/measure.ts turns
 * them into the numbers of each series, purely). Finders are the harness's own where one exists:
 * `clean`'s leftover finder, its process table, its budget-cgroup lister and its scratch roots, so the
 * soak counts exactly what `clean` would call sandbench's.
 */
import { lstatSync, readdirSync, readFileSync, statfsSync, statSync, type Dirent } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { findLeftovers, sandbenchMounts, type LeftoverSource } from '../../harness/clean/find-leftovers.ts';
import { procTable } from '../../harness/clean/proc-table.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { leftoverBudgets } from '../../harness/controls/leftover-budgets.ts';
import { scratchRoots } from '../../harness/state-dir.ts';
import { dockerdPaths } from '../../executors/dockerd-manager.ts';

export interface TreeCount {
  /** Entries directly in the root. */
  entries: number;
  /** Files, dirs and links below the root, recursively, on the root's filesystem. */
  files: number;
  /** `files` split by top-level entry (the entry itself included): what names a growth's source. */
  byEntry: Record<string, number>;
}

export interface EngineCounts {
  containers: number;
  images: number;
  volumes: number;
}

export interface HostSnapshot {
  self: { rssBytes: number; heapUsedBytes: number; fds: number };
  load1: number;
  procs: readonly { comm: string; cmdline: string }[];
  /** Path fragments that name the private dockerd's processes (its state dir base and data root). */
  dockerdMarkers: readonly string[];
  mountLines: number;
  sandbenchMounts: number;
  cgroupsAll: number;
  cgroupsSandbench: number;
  tmp: TreeCount;
  state: TreeCount;
  scratch: { runDirs: number; files: number; byEntry: Record<string, number> };
  bundlesKept: TreeCount;
  leftovers: number;
  podman: EngineCounts | null;
  docker: EngineCounts | null;
  disks: readonly { dev: number; usedBytes: number }[];
}

export interface SnapshotContext {
  stateDir: string;
  bundlesDir: string;
  leftoverSources: readonly LeftoverSource[];
}

function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // absent, unreadable, or removed while we walked
  }
}

/** Counts a tree without following links or crossing into another filesystem (overlays, binds, /proc). */
export function countTree(root: string): TreeCount {
  let device: number;
  try {
    device = statSync(root).dev;
  } catch {
    return { entries: 0, files: 0, byEntry: {} };
  }
  const walk = (dir: string): number =>
    entriesOf(dir).reduce((sum, entry) => {
      if (!entry.isDirectory()) return sum + 1;
      const path = join(dir, entry.name);
      try {
        if (lstatSync(path).dev !== device) return sum + 1;
      } catch {
        return sum;
      }
      return sum + 1 + walk(path);
    }, 0);
  const byEntry: Record<string, number> = {};
  for (const entry of entriesOf(root)) {
    const path = join(root, entry.name);
    let crosses = true;
    try {
      crosses = entry.isDirectory() && lstatSync(path).dev !== device;
    } catch {
      continue; // removed while we listed it
    }
    byEntry[entry.name] = entry.isDirectory() && !crosses ? 1 + walk(path) : 1;
  }
  const files = Object.values(byEntry).reduce((a, b) => a + b, 0);
  return { entries: Object.keys(byEntry).length, files, byEntry };
}

function countCgroupDirs(root: string): number {
  return entriesOf(root).filter((e) => e.isDirectory()).reduce((sum, e) => sum + 1 + countCgroupDirs(join(root, e.name)), 0);
}

function cgroupCounts(): { all: number; sandbench: number } {
  const layout = detectCgroupLayout();
  return { all: countCgroupDirs(layout.version === 1 ? layout.mounts.memory : layout.mount), sandbench: leftoverBudgets(undefined, layout).length };
}

async function lineCount(argv: string[]): Promise<number | null> {
  const result = await execa(argv[0]!, argv.slice(1), { reject: false, timeout: 60_000 });
  return result.exitCode === 0 ? result.stdout.split('\n').filter((line) => line.trim()).length : null;
}

async function podmanCounts(): Promise<EngineCounts | null> {
  const [containers, images, volumes] = await Promise.all([['ps', '--all', '-q'], ['images', '--all', '-q'], ['volume', 'ls', '-q']].map((args) => lineCount(['podman', ...args])));
  return containers === null || images === null || volumes === null ? null : { containers, images, volumes };
}

/**
 * The private dockerd stops when its last run ends, so asking the engine would leave a gap in the
 * series exactly between runs, when a leak is left standing. Its data root says the same at any time.
 */
function dockerCounts(stateDir: string): EngineCounts | null {
  const { dataRoot } = dockerdPaths(stateDir);
  const dirs = (path: string) => entriesOf(path).filter((e) => e.isDirectory()).length;
  if (entriesOf(dataRoot).length === 0) return null;
  const imageDrivers = entriesOf(join(dataRoot, 'image')).filter((e) => e.isDirectory());
  const images = imageDrivers.reduce((sum, driver) => sum + entriesOf(join(dataRoot, 'image', driver.name, 'imagedb', 'content', 'sha256')).length, 0);
  return { containers: dirs(join(dataRoot, 'containers')), images, volumes: dirs(join(dataRoot, 'volumes')) };
}

function diskUse(paths: readonly string[]): { dev: number; usedBytes: number }[] {
  return paths.flatMap((path) => {
    try {
      const fs = statfsSync(path);
      return [{ dev: statSync(path).dev, usedBytes: (fs.blocks - fs.bfree) * fs.bsize }];
    } catch {
      return [];
    }
  });
}

function selfUsage(): HostSnapshot['self'] {
  // A full GC first (the soak runs under node --expose-gc), so heap growth is retained memory, not garbage.
  (globalThis as { gc?: () => void }).gc?.();
  return { rssBytes: process.memoryUsage.rss(), heapUsedBytes: process.memoryUsage().heapUsed, fds: entriesOf('/proc/self/fd').length };
}

export async function takeSnapshot(context: SnapshotContext): Promise<HostSnapshot> {
  const { stateDir } = context;
  const docker = dockerdPaths(stateDir);
  const cgroups = cgroupCounts();
  const roots = scratchRoots(stateDir);
  const scratch = roots.map((root) => ({ root, runDirs: entriesOf(root).filter((e) => e.name.startsWith('sandbench-')).length, tree: countTree(root) }));
  const [leftovers, podman] = await Promise.all([findLeftovers({ stateDir, sources: context.leftoverSources }), podmanCounts()]);
  return {
    self: selfUsage(),
    load1: loadavg()[0]!,
    procs: [...procTable().values()].map(({ comm, cmdline }) => ({ comm, cmdline })),
    dockerdMarkers: [docker.base, docker.dataRoot],
    mountLines: readFileSync('/proc/self/mounts', 'utf8').split('\n').filter(Boolean).length,
    sandbenchMounts: sandbenchMounts().length,
    cgroupsAll: cgroups.all,
    cgroupsSandbench: cgroups.sandbench,
    tmp: countTree('/tmp'),
    state: countTree(stateDir),
    scratch: {
      runDirs: scratch.reduce((sum, r) => sum + r.runDirs, 0),
      files: scratch.reduce((sum, r) => sum + r.tree.files, 0),
      byEntry: Object.fromEntries(scratch.flatMap((r) => Object.entries(r.tree.byEntry).map(([name, n]) => [join(r.root, name), n]))),
    },
    bundlesKept: countTree(context.bundlesDir),
    leftovers: leftovers.length,
    podman,
    docker: dockerCounts(stateDir),
    disks: diskUse(['/', '/tmp', '/var/tmp', stateDir]),
  };
}
