/**
 * `sandbench clean`: every resource a dead run left behind, found by its name or label only —
 * processes and VMs, podman/docker containers (label `sandbench.run_id`), mounts and cgroups named
 * `sandbench-*`, temp dirs `sandbench-*` under every scratch root and the short socket dirs beside
 * them (harness/run/socket-path.ts: attributed by the path each stands for), a private dockerd no live run holds,
 * and stale run locks. Resources of live runs (a run lock with a live holder, in this state dir or
 * the machine-wide registry of every state dir's runs, or a trial tree still hanging below a live node
 * process) are never listed.
 */
import { readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { leftoverBudgets, removeBudget } from '../controls/leftover-budgets.ts';
import { detectCgroupLayout } from '../controls/cgroup-layout.ts';
import { liveRunIdsOnMachine, readRunLocks } from '../run/run-lock.ts';
import type { Leftover, LeftoverKind, LeftoverSource } from './leftover.ts';
import { findProcesses, killMatch } from './find-processes.ts';
import { mentionsAny, runIdIn, UNKNOWN_RUN } from './run-ids.ts';
import { scratchRoots } from '../state-dir.ts';
import { socketDirs } from '../run/socket-path.ts';

export type { Leftover, LeftoverKind, LeftoverSource } from './leftover.ts';

/** Removal order: what runs first (containers before their conmon, VMs and processes), then what they held. */
const ORDER: LeftoverKind[] = ['container', 'vm', 'process', 'mount', 'cgroup', 'daemon', 'tempdir', 'lock'];

export interface FindOptions {
  stateDir: string;
  /** Only this run's leftovers. */
  runId?: string;
  /** Backend finders (containers, daemons) from the composition root; none means only generic resources. */
  sources?: readonly LeftoverSource[];
}

/** Scratch dirs `sandbench-<run>` under every scratch root of this state dir (harness/state-dir.ts scratchRoots). */
function tempDirs(stateDir: string): { runId: string; dir: string }[] {
  return scratchRoots(stateDir).flatMap((root) => {
    try {
      return readdirSync(root).filter((name) => name.startsWith('sandbench-')).map((name) => ({ runId: name.slice('sandbench-'.length), dir: join(root, name) }));
    } catch {
      return [];
    }
  });
}

function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Mounts `clean` calls sandbench's (also counted by the soak, scripts/soak/snapshot.ts). */
export function sandbenchMounts(): { mountPoint: string; fsType: string }[] {
  const mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n');
  return mounts
    .map((line) => line.split(' '))
    .filter((parts) => parts.length > 2)
    .map((parts) => ({ mountPoint: unescapeMount(parts[1]!), fsType: parts[2]! }))
    // The private dockerd's runtime dir (/tmp/sandbench-dockerd-*) belongs to the daemon, not a run.
    .filter((mount) => mount.mountPoint.includes('sandbench-') && !mount.mountPoint.includes('sandbench-dockerd-'));
}

async function unmount(mountPoint: string, fsType: string): Promise<void> {
  const fuse = fsType.startsWith('fuse');
  const result = fuse ? await execa('fusermount', ['-uz', mountPoint], { reject: false }) : await execa('umount', ['-l', mountPoint], { reject: false });
  if (result.exitCode !== 0 && fuse) {
    const fallback = await execa('umount', ['-l', mountPoint], { reject: false });
    if (fallback.exitCode !== 0) throw new Error(`umount ${mountPoint}: ${fallback.stderr.trim()}`);
  } else if (result.exitCode !== 0) {
    throw new Error(`umount ${mountPoint}: ${result.stderr.trim()}`);
  }
}

export async function findLeftovers(options: FindOptions): Promise<Leftover[]> {
  const { stateDir } = options;
  const locks = readRunLocks(stateDir);
  // Live runs of every state dir: their containers and VMs are as visible from here as our own.
  const liveByLock = new Set([...locks.filter((lock) => lock.alive).map((lock) => lock.runId), ...liveRunIdsOnMachine()]);
  const sourced = (await Promise.all((options.sources ?? []).map((source) => source.find(stateDir)))).flat();
  const known = [...new Set([...tempDirs(stateDir).map((t) => t.runId), ...locks.map((lock) => lock.runId), ...sourced.map((l) => l.runId)])].filter((id) => id !== UNKNOWN_RUN);

  const processes = findProcesses(stateDir, known);
  const live = new Set([...liveByLock, ...processes.filter((p) => p.attached).map((p) => p.runId)]);
  const found: Leftover[] = [];
  const add = (leftover: Leftover) => {
    if (live.has(leftover.runId)) return;
    if (options.runId !== undefined && leftover.runId !== options.runId) return;
    found.push(leftover);
  };

  for (const leftover of sourced) add(leftover);
  for (const p of processes) add({ kind: p.kind, id: String(p.info.pid), runId: p.runId, remove: async () => killMatch(p) });
  for (const mount of sandbenchMounts()) {
    if (mentionsAny(mount.mountPoint, live)) continue;
    add({ kind: 'mount', id: mount.mountPoint, runId: runIdIn(mount.mountPoint, known) ?? UNKNOWN_RUN, remove: () => unmount(mount.mountPoint, mount.fsType) });
  }
  const layout = detectCgroupLayout();
  for (const name of leftoverBudgets(undefined, layout)) {
    if (mentionsAny(name, live)) continue;
    add({ kind: 'cgroup', id: name, runId: runIdIn(name, known) ?? UNKNOWN_RUN, remove: () => removeBudget(name, layout) });
  }
  for (const { runId, dir } of tempDirs(stateDir)) {
    add({ kind: 'tempdir', id: dir, runId, remove: async () => removeTempDir(dir) });
  }
  // A short socket dir names its run only through the wanted path in its `for` file; none: unknown, removed.
  for (const { dir, runId } of socketDirs(scratchRoots(stateDir))) {
    add({ kind: 'tempdir', id: dir, runId: runId ?? UNKNOWN_RUN, remove: async () => removeSocketDir(dir) });
  }
  for (const lock of locks.filter((l) => !l.alive)) add({ kind: 'lock', id: lock.path, runId: lock.runId, remove: async () => rmSync(lock.path, { force: true }) });
  return found.sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || a.id.localeCompare(b.id));
}

/** rm -r must never descend into a mount (a bind of host files): refuse while one is inside. */
function removeTempDir(dir: string): void {
  const inside = sandbenchMounts().filter((mount) => mount.mountPoint === dir || mount.mountPoint.startsWith(`${dir}/`));
  if (inside.length > 0) throw new Error(`${dir} still has ${inside.length} mount(s) inside (${inside[0]!.mountPoint}); not removing`);
  rmSync(dir, { recursive: true, force: true });
}

function removeSocketDir(dir: string): void {
  removeTempDir(dir);
  try {
    rmdirSync(dirname(dir)); // `sockets/` goes with its last dir
  } catch {
    // another run's socket dir is still there
  }
}

export interface CleanResult {
  removed: Leftover[];
  failed: { leftover: Leftover; error: string }[];
}

export async function removeLeftovers(leftovers: Leftover[]): Promise<CleanResult> {
  const result: CleanResult = { removed: [], failed: [] };
  // Killed processes take a moment to release mounts and cgroups: run kinds in order.
  let previousKind: LeftoverKind | null = null;
  for (const leftover of leftovers) {
    if (previousKind !== null && previousKind !== leftover.kind && (previousKind === 'process' || previousKind === 'vm')) await new Promise((r) => setTimeout(r, 200));
    previousKind = leftover.kind;
    try {
      await leftover.remove();
      result.removed.push(leftover);
    } catch (error) {
      result.failed.push({ leftover, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return result;
}
