/**
 * `sandbench clean`: every resource a dead run left behind, found by its name or label only —
 * processes and VMs, podman/docker containers (label `sandbench.run_id`), mounts and cgroups named
 * `sandbench-*`, temp dirs `$SANDBENCH_HOME/tmp/sandbench-*`, a private dockerd no live run holds,
 * and stale run locks. Resources of live runs (a run lock with a live holder, or a trial tree still
 * hanging below a live node process) are never listed.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { leftoverBudgets, removeBudget } from '../controls/leftover-budgets.ts';
import { detectCgroupLayout } from '../controls/cgroup-layout.ts';
import { readRunLocks } from '../run/run-lock.ts';
import { RUN_LABEL } from '../run/cleanup-registry.ts';
import { PODMAN } from '../../executors/podman.ts';
import { harnessDockerEngine } from '../../executors/docker.ts';
import { dockerdPaths, stopHarnessDockerd } from '../../executors/dockerd-manager.ts';
import { engineExec, removeContainer, type ContainerEngine } from '../../executors/container-common.ts';
import { findProcesses, killMatch } from './find-processes.ts';
import { mentionsAny, runIdIn, UNKNOWN_RUN } from './run-ids.ts';

export type LeftoverKind = 'container' | 'vm' | 'process' | 'mount' | 'cgroup' | 'daemon' | 'tempdir' | 'lock';

export interface Leftover {
  kind: LeftoverKind;
  id: string;
  runId: string;
  remove: () => Promise<void>;
}

/** Removal order: what runs first (containers before their conmon, VMs and processes), then what they held. */
const ORDER: LeftoverKind[] = ['container', 'vm', 'process', 'mount', 'cgroup', 'daemon', 'tempdir', 'lock'];

export interface FindOptions {
  stateDir: string;
  /** Only this run's leftovers. */
  runId?: string;
}

function tempDirRunIds(stateDir: string): string[] {
  try {
    return readdirSync(join(stateDir, 'tmp')).filter((name) => name.startsWith('sandbench-')).map((name) => name.slice('sandbench-'.length));
  } catch {
    return [];
  }
}

async function labelledContainers(engine: ContainerEngine): Promise<{ name: string; runId: string }[]> {
  const result = await engineExec(engine, ['ps', '--all', '--filter', `label=${RUN_LABEL}`, '--format', `{{.Names}}\t{{index .Labels "${RUN_LABEL}"}}`], 60_000);
  if (result.exitCode !== 0) return [];
  return result.stdout
    .split('\n')
    .map((line) => line.trim().split('\t'))
    .filter((parts) => parts[0])
    .map(([name, runId]) => ({ name: name!, runId: runId || UNKNOWN_RUN }));
}

async function engines(stateDir: string): Promise<ContainerEngine[]> {
  const found: ContainerEngine[] = [];
  if ((await execa('podman', ['--version'], { reject: false })).exitCode === 0) found.push(PODMAN);
  const docker = await harnessDockerEngine(stateDir).catch(() => null);
  if (docker) found.push(docker);
  return found;
}

function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

function sandbenchMounts(): { mountPoint: string; fsType: string }[] {
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

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The harness dockerd when it runs and no live lease holds it (leases are read, never pruned here). */
function orphanedDockerd(stateDir: string): { pid: number; runId: string } | null {
  const paths = dockerdPaths(stateDir);
  if (!existsSync(paths.base)) return null;
  let pid: number;
  try {
    pid = Number(readFileSync(paths.pidFile, 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return null;
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return null;
  }
  if (!cmdline.includes(paths.dataRoot)) return null;
  const leases = existsSync(paths.leasesDir) ? readdirSync(paths.leasesDir) : [];
  for (const entry of leases) {
    try {
      const lease = JSON.parse(readFileSync(join(paths.leasesDir, entry), 'utf8')) as { holderPid: number };
      if (isAlive(lease.holderPid)) return null;
    } catch {
      // torn lease: holds nothing
    }
  }
  const startedBy = readdirSync(paths.base).map((entry) => /^dockerd-sandbench-(.*)\.pid$/.exec(entry)?.[1]).find(Boolean);
  return { pid, runId: startedBy ?? UNKNOWN_RUN };
}

export async function findLeftovers(options: FindOptions): Promise<Leftover[]> {
  const { stateDir } = options;
  const locks = readRunLocks(stateDir);
  const liveByLock = new Set(locks.filter((lock) => lock.alive).map((lock) => lock.runId));
  const engineList = await engines(stateDir);
  const containers = (await Promise.all(engineList.map(async (engine) => (await labelledContainers(engine)).map((c) => ({ ...c, engine }))))).flat();
  const known = [...new Set([...tempDirRunIds(stateDir), ...locks.map((lock) => lock.runId), ...containers.map((c) => c.runId)])].filter((id) => id !== UNKNOWN_RUN);

  const processes = findProcesses(stateDir, known);
  const live = new Set([...liveByLock, ...processes.filter((p) => p.attached).map((p) => p.runId)]);
  const found: Leftover[] = [];
  const add = (leftover: Leftover) => {
    if (live.has(leftover.runId)) return;
    if (options.runId !== undefined && leftover.runId !== options.runId) return;
    found.push(leftover);
  };

  for (const c of containers) add({ kind: 'container', id: `${c.engine.kind}/${c.name}`, runId: c.runId, remove: () => removeContainer(c.engine, c.name) });
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
  const daemon = orphanedDockerd(stateDir);
  if (daemon) add({ kind: 'daemon', id: `dockerd/${daemon.pid}`, runId: daemon.runId, remove: async () => void (await stopHarnessDockerd(stateDir)) });
  for (const runId of tempDirRunIds(stateDir)) {
    const dir = join(stateDir, 'tmp', `sandbench-${runId}`);
    add({ kind: 'tempdir', id: dir, runId, remove: async () => removeTempDir(dir) });
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
