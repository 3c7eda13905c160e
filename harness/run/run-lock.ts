/**
 * A live run's lock: `$SANDBENCH_HOME/locks/runs/sandbench-<runId>.json` with the holder's pid and
 * its start time (from /proc/<pid>/stat, so a recycled pid is not mistaken for the holder).
 * `sandbench clean` never touches a run whose lock has a live holder; a run killed with -9 leaves
 * a lock whose holder is gone, which makes its resources leftovers.
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

function lockPath(stateDir: string, runId: string): string {
  return join(runLocksDir(stateDir), `sandbench-${runId.replace(/[^a-zA-Z0-9_.-]/g, '-')}.json`);
}

/** Take the lock for this process; returns the release function (idempotent). */
export function acquireRunLock(stateDir: string, runId: string): () => void {
  mkdirSync(runLocksDir(stateDir), { recursive: true });
  const path = lockPath(stateDir, runId);
  const lock: LockFile = { run_id: runId, pid: process.pid, start_ticks: processStartTicks(process.pid) };
  writeFileSync(path, `${JSON.stringify(lock)}\n`);
  return () => rmSync(path, { force: true });
}

export interface RunLockState {
  runId: string;
  pid: number;
  alive: boolean;
  path: string;
}

/** Every run lock on this state dir, with whether its holder still lives. Read-only. */
export function readRunLocks(stateDir: string): RunLockState[] {
  let entries: string[];
  try {
    entries = readdirSync(runLocksDir(stateDir));
  } catch {
    return [];
  }
  const states: RunLockState[] = [];
  for (const entry of entries.filter((name) => name.endsWith('.json'))) {
    const path = join(runLocksDir(stateDir), entry);
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
