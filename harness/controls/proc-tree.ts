/** Reading the process table from /proc: parents, names, command lines and cgroup membership. */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  comm: string;
  /** argv joined with spaces ('' for kernel threads and zombies). */
  cmdline: string;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** One process, or null when it has exited (a normal race while scanning). */
export function procInfo(pid: number): ProcInfo | null {
  const stat = readOrNull(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // comm is parenthesised and may contain spaces or ')' itself: split at the LAST ')'.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  const fields = stat.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const cmdline = (readOrNull(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).join(' ');
  return { pid, ppid, comm, cmdline };
}

export function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = procInfo(Number(entry));
    if (info) out.push(info);
  }
  return out;
}

/** Every descendant of the roots (roots included when still alive), from one snapshot. */
export function descendants(roots: readonly number[], table: readonly ProcInfo[] = listProcesses()): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const proc of table) children.set(proc.ppid, [...(children.get(proc.ppid) ?? []), proc]);
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const seen = new Set<number>();
  const out: ProcInfo[] = [];
  const stack = [...roots];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const self = byPid.get(pid);
    if (self) out.push(self);
    for (const child of children.get(pid) ?? []) stack.push(child.pid);
  }
  return out;
}

/** Ancestors of pid, nearest first, stopping before `stopAt` pids and pid 1. */
export function ancestors(pid: number, stopAt: ReadonlySet<number>, table: readonly ProcInfo[] = listProcesses()): ProcInfo[] {
  const byPid = new Map(table.map((p) => [p.pid, p]));
  const out: ProcInfo[] = [];
  let current = byPid.get(pid);
  while (current && current.ppid > 1 && !stopAt.has(current.ppid)) {
    const parent = byPid.get(current.ppid);
    if (!parent || out.some((p) => p.pid === parent.pid)) break;
    out.push(parent);
    current = parent;
  }
  return out;
}

export interface ProcCgroups {
  /** v1: controller → path (co-mounted controllers each get the same path). */
  v1: Map<string, string>;
  /** v2 unified path ("0::/path"), null when absent. */
  v2: string | null;
}

export function parseProcCgroup(text: string): ProcCgroups {
  const v1 = new Map<string, string>();
  let v2: string | null = null;
  for (const line of text.split('\n')) {
    const first = line.indexOf(':');
    const second = line.indexOf(':', first + 1);
    if (first < 0 || second < 0) continue;
    const controllers = line.slice(first + 1, second);
    const path = line.slice(second + 1);
    if (line.slice(0, first) === '0' && controllers === '') v2 = path;
    else for (const controller of controllers.split(',')) v1.set(controller, path);
  }
  return { v1, v2 };
}

/** null when the process has exited. */
export function procCgroups(pid: number): ProcCgroups | null {
  const text = readOrNull(`/proc/${pid}/cgroup`);
  return text === null ? null : parseProcCgroup(text);
}

/** Whether a process exists (EPERM: it exists but belongs to someone else). The one liveness check. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * SIGKILL every pid `listPids` returns until it returns none (killed processes take a moment to
 * leave their cgroup). The one drain loop for budgets and leftover cgroups; gives up after 5 s.
 */
export async function killUntilEmpty(listPids: () => number[]): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const pids = listPids();
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
