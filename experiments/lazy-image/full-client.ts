/**
 * The full-pull client: Podman with a private, initially empty store per cold launch (its own
 * --root/--runroot, so the host's store and other runs are never touched), `podman pull` through the
 * counting proxy, then the shell with the flags this host needs (backend-notes "Podman": runc, because
 * crun refuses cgroup v1 hybrid; explicit ulimits, because the default rlimits fail). Warm = the same
 * store again with `--pull never`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import { spawnTrial } from '../../executors/spawn-trial.ts';
import type { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { RUN_LABEL } from '../../harness/run/cleanup-registry.ts';
import { mountsUnder } from '../../services/lazy-content/mount-table.ts';

export interface PodmanStore {
  root: string;
  runroot: string;
  /** Remove containers, unmount the store's overlay mounts and delete it; throws on leftovers. Idempotent. */
  release(): Promise<void>;
}

export function podmanGlobalArgs(store: Pick<PodmanStore, 'root' | 'runroot'>): string[] {
  return ['podman', '--root', store.root, '--runroot', store.runroot, '--storage-driver', 'overlay', '--cgroup-manager', 'cgroupfs', '--events-backend', 'file'];
}

export function pullArgv(store: Pick<PodmanStore, 'root' | 'runroot'>, reference: string): string[] {
  return [...podmanGlobalArgs(store), 'pull', '--quiet', '--tls-verify=false', reference];
}

export function runArgv(store: Pick<PodmanStore, 'root' | 'runroot'>, reference: string, runId: string, name: string, argv: string[]): string[] {
  return [
    ...podmanGlobalArgs(store),
    'run', '--rm', '--pull', 'never',
    '--runtime', 'runc',
    '--network', 'none',
    '--ulimit', 'nofile=1024:1024',
    '--ulimit', 'nproc=4096:4096',
    '--label', `${RUN_LABEL}=${runId}`,
    '--name', name,
    reference,
    ...argv,
  ];
}

/** Podman refuses a --runroot longer than 50 characters (observed with podman 4.3). */
const MAX_RUNROOT = 50;

/**
 * A short runroot: `/tmp/sandbench-<runid>-r<n>` when that fits (so `sandbench clean` finds it by run
 * id), else `/tmp/sandbench-<hash of the run id>-r<n>`.
 */
export function runrootPath(runId: string, sequence: number): string {
  const named = join(tmpdir(), `sandbench-${runId}-r${sequence}`);
  if (named.length <= MAX_RUNROOT) return named;
  return join(tmpdir(), `sandbench-${createHash('sha256').update(runId).digest('hex').slice(0, 8)}-r${sequence}`);
}

export function createEmptyStore(dir: string, runroot: string, cleanup: CleanupRegistry): PodmanStore {
  const root = join(dir, 'root');
  mkdirSync(root, { recursive: true });
  mkdirSync(runroot, { recursive: true });
  let released: Promise<void> | null = null;
  const store: PodmanStore = {
    root,
    runroot,
    release: () => {
      released ??= (async () => {
        cleanup.forget(handle);
        await execa(podmanGlobalArgs(store)[0]!, [...podmanGlobalArgs(store).slice(1), 'rm', '--all', '--force'], { reject: false });
        for (const point of [...mountsUnder(root), ...mountsUnder(runroot)]) await execa('umount', [point], { reject: false });
        const left = [...mountsUnder(root), ...mountsUnder(runroot)];
        if (left.length > 0) throw new Error(`podman store teardown: still mounted: ${left.join(', ')}`);
        rmSync(dir, { recursive: true, force: true });
        rmSync(runroot, { recursive: true, force: true });
      })();
      return released;
    },
  };
  const handle = cleanup.register('tempdir', `podman store ${dir}`, store.release);
  return store;
}

/** `podman pull` into the store; resolves with the exit code and stderr (never throws for a failed pull). */
export async function pullImage(store: PodmanStore, reference: string, timeoutMs: number): Promise<{ exitCode: number | null; stderr: string }> {
  const [file, ...args] = pullArgv(store, reference);
  const result = await execa(file!, args, { reject: false, timeout: timeoutMs, stdin: 'ignore' });
  return { exitCode: typeof result.exitCode === 'number' ? result.exitCode : null, stderr: String(result.stderr).trim() };
}

/** `cpus` pins the podman client (and so the container it starts) through the launcher, before exec. */
export function launchFullShell(store: PodmanStore, reference: string, runId: string, name: string, argv: string[], timeoutMs: number, cpus: string | null = null): RunningTrial {
  const full = runArgv(store, reference, runId, name, argv);
  return spawnTrial({
    argv: full,
    stdin: 'none',
    timeoutMs,
    controls: { cpus, budget: null },
    onKill: async () => {
      await execa(full[0]!, [...podmanGlobalArgs(store).slice(1), 'rm', '--force', name], { reject: false });
    },
  });
}
