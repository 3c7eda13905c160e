/**
 * The lazy client: a root filesystem read on demand from the content service. httpfs2 exposes the
 * served squashfs as a FUSE file (HTTP range reads), the kernel loop-mounts it read-only, and
 * bubblewrap uses the mount as the shell's root (backend-notes "Lazy image"). A fresh httpfs2 and a
 * fresh loop device per cold launch give an empty client cache; launching again on the same mount
 * is the warm case. The mounts live in a private mount namespace of the client (not the host's), which
 * survives between the two launches; each shell enters it and bwrap makes its own namespace from it.
 */
import { mkdirSync } from 'node:fs';
import { readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import { SANDBOX_PATH } from '../../executors/launch-prefix.ts';
import { spawnTrial } from '../../executors/spawn-trial.ts';
import { RUN_ID_ENV, type CleanupRegistry, type ResourceHandle } from '../../harness/run/cleanup-registry.ts';
import { mountsUnder, processAlive } from '../../services/lazy-content/mount-table.ts';

/** Poll interval while waiting for httpfs2's FUSE file: short, because it is inside the cold timing. */
const FUSE_POLL_MS = 1;
const STOP_GRACE_MS = 5000;
const FUSE_BUSY_RETRY_MS = 5000;
const NAMESPACE_TIMEOUT_MS = 5000;
/**
 * Set on every process the lazy client and registry leave running, so `sandbench clean` can find
 * them by run id (in /proc/<pid>/environ) after a harness killed with -9: `sleep infinity` names nothing.
 */

export interface LazyMount {
  /** The loop-mounted squashfs: the shell's root. */
  rootDir: string;
  fuseDir: string;
  httpfs2Pid: number;
  /** A process inside the client's private mount namespace (where the mounts live). */
  namespacePid: number;
  /** hrtime when httpfs2 was spawned (start of the cold launch). */
  tStartNs: bigint;
  /** hrtime when the root was mounted and usable. */
  tMountedNs: bigint;
  /** Unmount both, stop httpfs2 and prove nothing is left. Throws on any leftover. Idempotent. */
  release(): Promise<void>;
}

export interface MountOptions {
  fileUrl: string;
  fileName: string;
  /** Fresh directory for this client (fuse/ and root/ are made below it). */
  workDir: string;
  cleanup: CleanupRegistry;
  timeoutMs: number;
}

/**
 * Async stat only: the content service may run in this very process, and a synchronous call into
 * the FUSE mount would block the event loop that has to answer httpfs2's requests (a deadlock).
 */
async function waitForFile(path: string, child: ResultPromise, deadline: number): Promise<void> {
  let exited = false;
  void child.then(() => (exited = true), () => (exited = true));
  for (;;) {
    try {
      if ((await stat(path)).size > 0) return;
    } catch {
      // not mounted yet
    }
    if (exited) throw new Error(`httpfs2 exited before ${path} appeared`);
    if (Date.now() > deadline) throw new Error(`httpfs2 did not expose ${path} in time`);
    await sleep(FUSE_POLL_MS);
  }
}

async function stopProcess(pid: number, child: ResultPromise): Promise<void> {
  if (!processAlive(pid)) return;
  const done = child.then(() => undefined, () => undefined);
  const grace = sleep(STOP_GRACE_MS).then(() => 'timeout' as const);
  if ((await Promise.race([done, grace])) === 'timeout') {
    child.kill('SIGKILL');
    await done;
  }
}

/**
 * The loop device detaches asynchronously after umount (autoclear) and holds the FUSE file open
 * until then, so fusermount can say "busy" for a moment. Retry briefly; still busy = a real failure.
 */
async function unmountFuse(nsenter: string[], point: string): Promise<string | null> {
  const deadline = Date.now() + FUSE_BUSY_RETRY_MS;
  for (;;) {
    const result = await execa(nsenter[0]!, [...nsenter.slice(1), 'fusermount', '-u', point], { reject: false });
    if (result.exitCode === 0) return null;
    if (!/busy/i.test(result.stderr) || Date.now() > deadline) return result.stderr.trim();
    await sleep(20);
  }
}

/**
 * A private mount namespace for one client, held open by `sleep`. The FUSE and loop mounts live only
 * there: in the host namespace, every namespace other programs create meanwhile (containers,
 * sandboxes) would copy them and keep the loop device, and so the FUSE file, busy after our umount
 * (seen here as intermittent "Device or resource busy" teardowns while other suites ran).
 */
async function startNamespaceHolder(runId: string): Promise<{ pid: number; child: ResultPromise }> {
  const child = execa('unshare', ['--mount', '--propagation', 'private', 'sleep', 'infinity'], { stdio: 'ignore', reject: false, cleanup: true, env: { [RUN_ID_ENV]: runId } });
  const pid = child.pid;
  if (pid === undefined) throw new Error('unshare did not start');
  const own = await readlink('/proc/self/ns/mnt');
  const deadline = Date.now() + NAMESPACE_TIMEOUT_MS;
  for (;;) {
    const ns = await readlink(`/proc/${pid}/ns/mnt`).catch(() => own);
    if (ns !== own) return { pid, child };
    if (Date.now() > deadline || !processAlive(pid)) throw new Error('unshare did not create the client mount namespace');
    await sleep(1);
  }
}

/** Start httpfs2 and loop-mount the image: the client side of a cold launch. */
export async function mountLazyRoot(options: MountOptions): Promise<LazyMount> {
  const fuseDir = join(options.workDir, 'fuse');
  const rootDir = join(options.workDir, 'root');
  const fuseFile = join(fuseDir, options.fileName);
  mkdirSync(fuseDir, { recursive: true });
  mkdirSync(rootDir, { recursive: true });
  const handles: ResourceHandle[] = [];
  // The namespace is the client's environment, made before the clock starts (like an installed client).
  const holder = await startNamespaceHolder(options.cleanup.runId);
  const nsenter = ['nsenter', '-t', String(holder.pid), '-m', '--'];
  const tStartNs = process.hrtime.bigint();
  // nsenter execs httpfs2 (no fork for a mount namespace): the pid is httpfs2's. -f: stay in the
  // foreground so the harness owns it; -c /dev/null: its chatter goes nowhere.
  const child = execa(nsenter[0]!, [...nsenter.slice(1), 'httpfs2', '-f', '-c', '/dev/null', options.fileUrl, fuseDir], { stdio: 'ignore', reject: false, cleanup: true, env: { [RUN_ID_ENV]: options.cleanup.runId } });
  const pid = child.pid;
  if (pid === undefined) throw new Error('httpfs2 did not start');

  let released: Promise<void> | null = null;
  const release = () => {
    released ??= (async () => {
      const problems: string[] = [];
      const inside = () => {
        try {
          return mountsUnder(options.workDir, holder.pid);
        } catch {
          return []; // holder gone: its namespace, and every mount in it, is gone too
        }
      };
      for (const point of inside().filter((p) => p === rootDir)) {
        const result = await execa(nsenter[0]!, [...nsenter.slice(1), 'umount', point], { reject: false });
        if (result.exitCode !== 0) problems.push(`umount ${point}: ${result.stderr.trim()}`);
      }
      for (const point of inside().filter((p) => p === fuseDir)) {
        const error = await unmountFuse(nsenter, point);
        if (error) problems.push(`fusermount -u ${point}: ${error}`);
      }
      const left = inside();
      if (left.length > 0) problems.push(`still mounted: ${left.join(', ')}`);
      child.kill('SIGTERM');
      await stopProcess(pid, child);
      // Killing the holder ends the namespace: whatever was still mounted there goes with it.
      holder.child.kill('SIGKILL');
      await stopProcess(holder.pid, holder.child);
      for (const handle of handles) options.cleanup.forget(handle);
      if (processAlive(pid)) problems.push(`httpfs2 ${pid} still running`);
      if (processAlive(holder.pid)) problems.push(`namespace holder ${holder.pid} still running`);
      if (mountsUnder(options.workDir).length > 0) problems.push(`mounts under ${options.workDir} in the host namespace`);
      if (problems.length > 0) throw new Error(`lazy client teardown: ${problems.join('; ')}`);
    })();
    return released;
  };
  handles.push(options.cleanup.register('process', `httpfs2 ${pid} (namespace ${holder.pid}) ${fuseDir}`, release));

  try {
    await waitForFile(`/proc/${holder.pid}/root${fuseFile}`, child, Date.now() + options.timeoutMs);
    const mount = await execa(nsenter[0]!, [...nsenter.slice(1), 'mount', '-t', 'squashfs', '-o', 'ro,loop', fuseFile, rootDir], { reject: false });
    if (mount.exitCode !== 0) throw new Error(`mount of the lazy image failed: ${mount.stderr.trim()}`);
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  return { rootDir, fuseDir, httpfs2Pid: pid, namespacePid: holder.pid, tStartNs, tMountedNs: process.hrtime.bigint(), release };
}

/** bwrap with the lazy mount as read-only root, no network, own PID namespace. */
export function lazyShellArgv(mount: Pick<LazyMount, 'rootDir' | 'namespacePid'>, argv: string[]): string[] {
  const rootDir = mount.rootDir;
  return [
    // nsenter only execs (no fork): the shell starts in the client's namespace, where the root is mounted.
    'nsenter', '-t', String(mount.namespacePid), '-m', '--',
    'bwrap',
    '--ro-bind', rootDir, '/',
    '--proc', '/proc',
    '--dev', '/dev',
    '--tmpfs', '/tmp',
    '--unshare-net',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--hostname', 'sandbench-task',
    '--die-with-parent',
    '--clearenv',
    '--setenv', 'PATH', SANDBOX_PATH,
    '--setenv', 'HOME', '/tmp',
    '--setenv', 'LANG', 'C.UTF-8',
    '--chdir', '/',
    '--',
    ...argv,
  ];
}

/**
 * Launch the shell on a mounted lazy root (timed from just before this spawn). `cpus` pins it as
 * every executor's trials are: applied by the launcher before exec (no `taskset` exec in the timing).
 */
export function launchLazyShell(mount: Pick<LazyMount, 'rootDir' | 'namespacePid'>, argv: string[], timeoutMs: number, cpus: string | null = null): RunningTrial {
  return spawnTrial({ argv: lazyShellArgv(mount, argv), clearEnv: true, env: { PATH: SANDBOX_PATH }, stdin: 'none', timeoutMs, controls: { cpus, budget: null } });
}
