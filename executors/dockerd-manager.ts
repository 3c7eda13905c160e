/**
 * A private dockerd for runs that have no Docker engine: its own data root, exec root, pidfile,
 * config file and socket under $SANDBENCH_HOME/docker, no iptables, no bridge (backend-notes: Docker).
 *
 * Sharing: concurrent runs/test files of one $SANDBENCH_HOME use the same daemon. Each user holds a
 * lease file (run id + holder pid) taken under a lock; the last holder to release stops the daemon
 * (SIGTERM, wait, SIGKILL). Leases of dead holders are pruned, so a run killed with -9 does not pin
 * the daemon forever, and `sandbench clean` can stop an orphaned one with stopHarnessDockerd().
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, openSync, closeSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { withLock } from '../harness/image/file-lock.ts';
import { isAlive } from '../harness/controls/proc-tree.ts';
import { CONTAINER_ULIMITS } from './container-common.ts';
import { criuPrefix } from './checkpoint/criu.ts';

export interface DockerdPaths {
  base: string;
  /** `unix://...` address for `docker -H`. */
  host: string;
  socket: string;
  dataRoot: string;
  execRoot: string;
  /** Written by dockerd itself (--pidfile). */
  pidFile: string;
  configFile: string;
  logFile: string;
  lockDir: string;
  leasesDir: string;
  /**
   * containerd's TMPDIR. It unpacks every checkpoint it restores into `ctrd-checkpoint*` there and
   * never removes it (containerd 1.6 tasks Create, ~15 MB per `docker start --checkpoint`): in the
   * daemon's own dir, not /tmp, so a stopped daemon takes them along and a caller's TMPDIR (a test
   * suite's, removed when it ends) never decides where a shared daemon writes.
   */
  tmpDir: string;
}

/** Unix socket paths are limited to 108 bytes (sun_path); keep a margin for containerd.sock.ttrpc. */
const MAX_SOCKET_PATH = 100;
/** Waiting for a fresh dockerd to answer (it usually takes ~1 s here). */
const START_TIMEOUT_MS = 60_000;
/** SIGTERM → SIGKILL grace when stopping dockerd (it stops its containerd first). */
const STOP_GRACE_MS = 20_000;

export function dockerdPaths(stateDir: string): DockerdPaths {
  const base = join(stateDir, 'docker');
  // Sockets live in the exec root and next to it; a long $SANDBENCH_HOME moves them to a short /tmp path.
  const longest = join(base, 'exec', 'containerd', 'containerd.sock.ttrpc');
  const runtimeBase =
    longest.length <= MAX_SOCKET_PATH ? base : join('/tmp', `sandbench-dockerd-${createHash('sha256').update(stateDir).digest('hex').slice(0, 12)}`);
  const socket = join(runtimeBase, 'docker.sock');
  return {
    base,
    host: `unix://${socket}`,
    socket,
    dataRoot: join(base, 'data'),
    execRoot: join(runtimeBase, 'exec'),
    pidFile: join(runtimeBase, 'dockerd.pid'),
    configFile: join(base, 'daemon.json'),
    logFile: join(base, 'dockerd.log'),
    lockDir: join(base, 'lock'),
    leasesDir: join(base, 'leases'),
    tmpDir: join(base, 'containerd-tmp'),
  };
}

/** The file `sandbench clean` looks for: dockerd pid, named with the run id that started it. */
export function startedByFile(paths: DockerdPaths, runId: string): string {
  return join(paths.base, `dockerd-sandbench-${runId}.pid`);
}

export function dockerdArgs(paths: DockerdPaths): string[] {
  return [
    '--data-root', paths.dataRoot,
    '--exec-root', paths.execRoot,
    '--pidfile', paths.pidFile,
    // Our own (empty) config: a user's /etc/docker/daemon.json (e.g. "hosts") must not apply.
    '--config-file', paths.configFile,
    '-H', paths.host,
    '--iptables=false',
    '--bridge=none',
    ...CONTAINER_ULIMITS.flatMap((limit) => ['--default-ulimit', limit]),
    '--shutdown-timeout', '5',
    // `docker checkpoint` (the docker checkpoint mechanism) exists only on an experimental daemon;
    // it changes nothing for plain `docker run`, so every docker arm shares this one daemon.
    '--experimental',
  ];
}

/**
 * dockerd's environment: runc finds criu through PATH, so the sandbench-built CRIU >= 4.2 goes
 * first; TMPDIR is the daemon's own (dockerd sets its own TMPDIR only after starting containerd,
 * which keeps this one).
 */
export function dockerdEnv(tmpDir: string): NodeJS.ProcessEnv {
  const criuDir = join(criuPrefix(), 'sbin');
  const path = process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin';
  return { ...process.env, TMPDIR: tmpDir, ...(existsSync(join(criuDir, 'criu')) ? { PATH: `${criuDir}:${path}` } : {}) };
}

export async function engineAnswers(cli: string, host: string, timeoutMs = 10_000): Promise<boolean> {
  const result = await execa(cli, ['-H', host, 'version', '--format', '{{.Server.Version}}'], { reject: false, timeout: timeoutMs });
  return result.exitCode === 0 && result.stdout.trim().length > 0;
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Pids whose command line mentions `needle` (our dockerd, its containerd and shims). */
function pidsMentioning(needle: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== process.pid && cmdline(pid).includes(needle));
}

async function waitGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (pids.every((pid) => !isAlive(pid))) return true;
    await sleep(100);
  }
  return pids.every((pid) => !isAlive(pid));
}

/** Stop the harness dockerd of these paths (and, after SIGKILL, its orphaned containerd/shims). */
async function stopDaemon(paths: DockerdPaths): Promise<boolean> {
  const pid = readPid(paths.pidFile);
  const daemon = pid !== null && isAlive(pid) && cmdline(pid).includes(paths.dataRoot) ? [pid] : [];
  for (const p of daemon) process.kill(p, 'SIGTERM');
  if (!(await waitGone(daemon, STOP_GRACE_MS))) for (const p of daemon) process.kill(p, 'SIGKILL');
  await waitGone(daemon, 5_000);
  // containerd and shims started by a SIGKILLed dockerd would survive it: match them by our exec root.
  const orphans = pidsMentioning(paths.execRoot);
  for (const p of orphans) process.kill(p, 'SIGKILL');
  await waitGone(orphans, 5_000);
  rmSync(paths.pidFile, { force: true });
  // The checkpoints containerd unpacked for restores (see DockerdPaths.tmpDir): no process is left to use them.
  rmSync(paths.tmpDir, { recursive: true, force: true });
  for (const entry of readdirSync(paths.base)) if (/^dockerd-sandbench-.*\.pid$/.test(entry)) rmSync(join(paths.base, entry), { force: true });
  return daemon.length > 0;
}

function logTail(paths: DockerdPaths): string {
  try {
    return readFileSync(paths.logFile, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
}

async function startDaemon(paths: DockerdPaths, cli: string, runId: string): Promise<number> {
  for (const dir of [paths.base, paths.execRoot, paths.dataRoot, paths.leasesDir, paths.tmpDir]) mkdirSync(dir, { recursive: true });
  if (!existsSync(paths.configFile)) writeFileSync(paths.configFile, '{}\n');
  const log = openSync(paths.logFile, 'a');
  // Detached: the daemon is shared and outlives this process until the last lease is released.
  const child = spawn('dockerd', dockerdArgs(paths), { detached: true, stdio: ['ignore', log, log], env: dockerdEnv(paths.tmpDir) });
  closeSync(log);
  let exited: string | null = null;
  child.on('exit', (code, signal) => (exited = `exited with ${code ?? signal}`));
  child.on('error', (error) => (exited = error.message));
  child.unref();
  if (child.pid !== undefined) writeFileSync(startedByFile(paths, runId), `${child.pid}\n`);
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline && exited === null) {
    if (await engineAnswers(cli, paths.host, 5_000)) return child.pid!;
    await sleep(200);
  }
  if (exited === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
  await stopDaemon(paths);
  throw new Error(`private dockerd did not answer on ${paths.socket} (${exited ?? `timeout ${START_TIMEOUT_MS} ms`}): ${logTail(paths)}`);
}

interface LeaseFile {
  runId: string;
  holderPid: number;
}

/** Leases taken by this process so far: two holders of one run in one process (the docker executor
 *  and the docker checkpoint mechanism of a fork cell) each get a file, so one's release cannot
 *  stop the daemon under the other. */
let leasesTaken = 0;

function leaseName(runId: string): string {
  return `${runId}.${process.pid}.${++leasesTaken}.json`.replace(/[^a-zA-Z0-9_.-]/g, '-');
}

/** Live leases (files of dead holders are deleted on the way). */
function liveLeases(paths: DockerdPaths): LeaseFile[] {
  if (!existsSync(paths.leasesDir)) return [];
  const live: LeaseFile[] = [];
  for (const entry of readdirSync(paths.leasesDir)) {
    const file = join(paths.leasesDir, entry);
    try {
      const lease = JSON.parse(readFileSync(file, 'utf8')) as LeaseFile;
      if (isAlive(lease.holderPid)) live.push(lease);
      else rmSync(file, { force: true });
    } catch {
      rmSync(file, { force: true });
    }
  }
  return live;
}

/**
 * withLock only expires a lock after 15 minutes; a holder killed with -9 during the ~1 s start
 * would stall every later run that long. Drop a lock whose recorded holder is dead.
 */
function clearDeadLock(lockDir: string): void {
  const holder = readPid(join(lockDir, 'pid'));
  if (holder !== null && !isAlive(holder) && readPid(join(lockDir, 'pid')) === holder) rmSync(lockDir, { recursive: true, force: true });
}

function withDockerdLock<T>(paths: DockerdPaths, body: () => Promise<T>): Promise<T> {
  clearDeadLock(paths.lockDir);
  return withLock(paths.lockDir, body);
}

export interface DockerdLease {
  paths: DockerdPaths;
  host: string;
  /** True when this call started the daemon (false: a harness dockerd was already answering). */
  startedHere: boolean;
  /** dockerd pid (from its pidfile). */
  pid: number | null;
  /** Drop this lease; stops the daemon when no live lease remains. Resolves to whether it stopped it. */
  release(): Promise<boolean>;
}

export async function acquireDockerd(options: { stateDir: string; runId: string; cli: string; log: (m: string) => void }): Promise<DockerdLease> {
  const paths = dockerdPaths(options.stateDir);
  mkdirSync(paths.base, { recursive: true });
  const lease = join(paths.leasesDir, leaseName(options.runId));
  const startedHere = await withDockerdLock(paths, async () => {
    let started = false;
    if (!(await engineAnswers(options.cli, paths.host))) {
      await stopDaemon(paths); // a hung or half-dead harness daemon of these paths
      options.log(`docker: starting a private dockerd on ${paths.socket}`);
      await startDaemon(paths, options.cli, options.runId);
      started = true;
    }
    mkdirSync(paths.leasesDir, { recursive: true });
    writeFileSync(lease, JSON.stringify({ runId: options.runId, holderPid: process.pid } satisfies LeaseFile));
    return started;
  });
  let released: Promise<boolean> | null = null;
  return {
    paths,
    host: paths.host,
    startedHere,
    pid: readPid(paths.pidFile),
    release() {
      released ??= withDockerdLock(paths, async () => {
        rmSync(lease, { force: true });
        if (liveLeases(paths).length > 0) return false;
        return stopDaemon(paths);
      });
      return released;
    },
  };
}

const PINNED_LEASE = 'pinned.json';

/**
 * Keep the harness dockerd running across runs (scripts/start-dockerd.sh): a lease whose holder is
 * the daemon itself, so it lives until unpinHarnessDockerd() or the daemon dies.
 */
export async function pinHarnessDockerd(options: { stateDir: string; cli: string; log: (m: string) => void }): Promise<DockerdPaths> {
  const lease = await acquireDockerd({ ...options, runId: 'pinned' });
  if (lease.pid === null) throw new Error(`harness dockerd on ${lease.paths.socket} has no pid file`);
  writeFileSync(join(lease.paths.leasesDir, PINNED_LEASE), JSON.stringify({ runId: 'pinned', holderPid: lease.pid } satisfies LeaseFile));
  await lease.release();
  return lease.paths;
}

/** Drop the pin; the daemon stops now unless a live run still holds it (then the last one stops it). */
export async function unpinHarnessDockerd(stateDir: string): Promise<{ stopped: boolean; holders: string[] }> {
  const paths = dockerdPaths(stateDir);
  rmSync(join(paths.leasesDir, PINNED_LEASE), { force: true });
  return stopHarnessDockerd(stateDir);
}

/** For `sandbench clean`: stop the harness dockerd of this state dir when no live run holds it. */
export async function stopHarnessDockerd(stateDir: string, options: { force?: boolean } = {}): Promise<{ stopped: boolean; holders: string[] }> {
  const paths = dockerdPaths(stateDir);
  if (!existsSync(paths.base)) return { stopped: false, holders: [] };
  return withDockerdLock(paths, async () => {
    const holders = liveLeases(paths).map((lease) => `${lease.runId} (pid ${lease.holderPid})`);
    if (holders.length > 0 && !options.force) return { stopped: false, holders };
    return { stopped: await stopDaemon(paths), holders };
  });
}
