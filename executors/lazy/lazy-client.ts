/**
 * The lazy client: a root filesystem read on demand from the content service. httpfs2 exposes the
 * served squashfs as a FUSE file (HTTP range reads), the kernel loop-mounts it read-only, and
 * bubblewrap uses the mount as the shell's root (backend-notes "Lazy image"). A fresh httpfs2 and a
 * fresh loop device per cold launch give an empty client cache; launching again on the same mount
 * is the warm case. The mount lives in the host namespace so it survives between the two launches;
 * bwrap makes the shell's own private mount namespace.
 */
import { mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import type { RunningTrial } from '../executor.ts';
import { SANDBOX_PATH } from '../launch-prefix.ts';
import { spawnTrial } from '../spawn-trial.ts';
import type { CleanupRegistry, ResourceHandle } from '../../harness/run/cleanup-registry.ts';
import { mountsUnder, processAlive } from './mount-table.ts';

/** Poll interval while waiting for httpfs2's FUSE file: short, because it is inside the cold timing. */
const FUSE_POLL_MS = 1;
const STOP_GRACE_MS = 5000;
const FUSE_BUSY_RETRY_MS = 5000;

export interface LazyMount {
  /** The loop-mounted squashfs: the shell's root. */
  rootDir: string;
  fuseDir: string;
  httpfs2Pid: number;
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
 * The loop device that `mount -o loop` made detaches asynchronously after umount (autoclear), and
 * holds the FUSE file open until then: fusermount says "busy" for a moment (observed once in 20).
 * Retry briefly; a mount still busy after that is a real teardown failure.
 */
async function unmountFuse(point: string): Promise<string | null> {
  const deadline = Date.now() + FUSE_BUSY_RETRY_MS;
  for (;;) {
    const result = await execa('fusermount', ['-u', point], { reject: false });
    if (result.exitCode === 0) return null;
    if (!/busy/i.test(result.stderr) || Date.now() > deadline) return result.stderr.trim();
    await sleep(20);
  }
}

/** Start httpfs2 and loop-mount the image: the client side of a cold launch. */
export async function mountLazyRoot(options: MountOptions): Promise<LazyMount> {
  const fuseDir = join(options.workDir, 'fuse');
  const rootDir = join(options.workDir, 'root');
  mkdirSync(fuseDir, { recursive: true });
  mkdirSync(rootDir, { recursive: true });
  const handles: ResourceHandle[] = [];
  const tStartNs = process.hrtime.bigint();
  // -f: stay in the foreground so the harness owns the process; -c /dev/null: its chatter goes nowhere.
  const child = execa('httpfs2', ['-f', '-c', '/dev/null', options.fileUrl, fuseDir], { stdio: 'ignore', reject: false, cleanup: true });
  const pid = child.pid;
  if (pid === undefined) throw new Error('httpfs2 did not start');

  let released: Promise<void> | null = null;
  const release = () => {
    released ??= (async () => {
      const problems: string[] = [];
      for (const point of mountsUnder(rootDir)) {
        const result = await execa('umount', [point], { reject: false });
        if (result.exitCode !== 0) problems.push(`umount ${point}: ${result.stderr.trim()}`);
      }
      for (const point of mountsUnder(fuseDir)) {
        const error = await unmountFuse(point);
        if (error) problems.push(`fusermount -u ${point}: ${error}`);
      }
      child.kill('SIGTERM');
      await stopProcess(pid, child);
      for (const handle of handles) options.cleanup.forget(handle);
      const left = [...mountsUnder(rootDir), ...mountsUnder(fuseDir)];
      if (left.length > 0) problems.push(`still mounted: ${left.join(', ')}`);
      if (processAlive(pid)) problems.push(`httpfs2 ${pid} still running`);
      if (problems.length > 0) throw new Error(`lazy client teardown: ${problems.join('; ')}`);
    })();
    return released;
  };
  handles.push(options.cleanup.register('process', `httpfs2 ${pid} ${fuseDir}`, release));

  try {
    await waitForFile(join(fuseDir, options.fileName), child, Date.now() + options.timeoutMs);
    const mount = await execa('mount', ['-t', 'squashfs', '-o', 'ro,loop', join(fuseDir, options.fileName), rootDir], { reject: false });
    if (mount.exitCode !== 0) throw new Error(`mount of the lazy image failed: ${mount.stderr.trim()}`);
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  return { rootDir, fuseDir, httpfs2Pid: pid, tStartNs, tMountedNs: process.hrtime.bigint(), release };
}

/** bwrap with the lazy mount as read-only root, no network, own PID namespace. */
export function lazyShellArgv(rootDir: string, argv: string[], prefix: string[] = []): string[] {
  return [
    ...prefix,
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

/** Launch the shell on a mounted lazy root (timed from just before this spawn). */
export function launchLazyShell(mount: Pick<LazyMount, 'rootDir'>, argv: string[], timeoutMs: number, prefix: string[] = []): RunningTrial {
  return spawnTrial({ argv: lazyShellArgv(mount.rootDir, argv, prefix), clearEnv: true, env: { PATH: SANDBOX_PATH }, stdin: 'none', timeoutMs });
}
