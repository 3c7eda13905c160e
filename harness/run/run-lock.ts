/**
 * A live run's lock: `$SANDBENCH_HOME/locks/runs/sandbench-<runId>.json` with the holder's pid and
 * its start time (from /proc/<pid>/stat, so a recycled pid is not mistaken for the holder).
 * `sandbench clean` never touches a run whose lock has a live holder; a run killed with -9 leaves
 * a lock whose holder is gone, which makes its resources leftovers.
 *
 * Containers and VMs are machine-wide while locks live per state dir, so every lock is also mirrored
 * in one machine-wide registry (LIVE_RUNS_DIR): a `clean` (or the test suite's teardown) on one
 * SANDBENCH_HOME must not take a live run of another for a dead one. Only live entries there count.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface LockFile {
  run_id: string;
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot): identifies the process, not just its pid. */
  start_ticks: string | null;
}

export function runLocksDir(stateDir: string): string {
  return join(stateDir, 'locks', 'runs');
}

/** Start time of a process, or null when it does not exist (or /proc is unreadable). */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces and parentheses: split after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** The machine-wide registry of live runs, whatever their state dir (a dot name: no scratch scan takes it for a run's temp dir). */
export function liveRunsDir(): string {
  return process.env.SANDBENCH_LIVE_RUNS ?? join('/tmp', `.sandbench-live-runs-${process.getuid?.() ?? 0}`);
}

const lockFileName = (runId: string) => `sandbench-${runId.replace(/[^a-zA-Z0-9_.-]/g, '-')}.json`;

function lockPath(stateDir: string, runId: string): string {
  return join(runLocksDir(stateDir), lockFileName(runId));
}

/** Take the lock for this process (in its state dir and the machine-wide registry); returns the release function (idempotent). */
export function acquireRunLock(stateDir: string, runId: string): () => void {
  const lock: LockFile = { run_id: runId, pid: process.pid, start_ticks: processStartTicks(process.pid) };
  const paths = [lockPath(stateDir, runId), join(liveRunsDir(), lockFileName(runId))];
  pruneDeadRegistryEntries();
  for (const path of paths) {
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, `${JSON.stringify(lock)}\n`);
  }
  return () => paths.forEach((path) => rmSync(path, { force: true }));
}

/** Registry entries of runs killed with -9 (their state dir's own lock is what `clean` reports). */
function pruneDeadRegistryEntries(): void {
  for (const lock of readLockDir(liveRunsDir())) if (!lock.alive) rmSync(lock.path, { force: true });
}

/** Run ids of live runs on this machine, whatever their state dir. */
export function liveRunIdsOnMachine(): Set<string> {
  return new Set(readLockDir(liveRunsDir()).filter((lock) => lock.alive).map((lock) => lock.runId));
}

export interface RunLockState {
  runId: string;
  pid: number;
  alive: boolean;
  path: string;
}

/** Every run lock on this state dir, with whether its holder still lives. Read-only. */
export function readRunLocks(stateDir: string): RunLockState[] {
  return readLockDir(runLocksDir(stateDir));
}

function readLockDir(dir: string): RunLockState[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  const states: RunLockState[] = [];
  for (const entry of entries.filter((name) => name.endsWith('.json'))) {
    const path = join(dir, entry);
    try {
      const lock = JSON.parse(readFileSync(path, 'utf8')) as LockFile;
      const ticks = processStartTicks(lock.pid);
      const alive = ticks !== null && (lock.start_ticks === null || ticks === lock.start_ticks);
      states.push({ runId: lock.run_id, pid: lock.pid, alive, path });
    } catch {
      // A torn lock (killed while writing): no live holder can be proven, treat it as dead.
      states.push({ runId: entry.replace(/^sandbench-/, '').replace(/\.json$/, ''), pid: 0, alive: false, path });
    }
  }
  return states;
}
