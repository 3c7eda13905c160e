/**
 * A snapshot of the host's process table from /proc: what `sandbench clean` needs to recognise a
 * trial tree left behind by a killed harness (argv, environment, working directory, process group,
 * parent). Processes that vanish while being read are skipped.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  comm: string;
  /** Scheduler state (R, S, D, Z...): a zombie is already dead, only not yet reaped by its parent. */
  state: string;
  /** argv joined with spaces. */
  cmdline: string;
  /** Environment as NUL-separated KEY=VALUE (empty when unreadable). */
  environ: string;
  /** Resolved working directory ('' when unreadable). */
  cwd: string;
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return fallback;
  }
}

function readProc(pid: number): ProcInfo | null {
  const stat = readOr(`/proc/${pid}/stat`, '');
  if (!stat) return null;
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close);
  // Fields after the command name: state ppid pgrp ...
  const [state, ppid, pgid] = stat.slice(close + 2).split(' ');
  let cwd = '';
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    // kernel threads and other users' processes
  }
  return {
    pid,
    ppid: Number(ppid),
    pgid: Number(pgid),
    comm,
    state: state ?? '',
    cmdline: readOr(`/proc/${pid}/cmdline`, '').replace(/\0+$/, '').replace(/\0/g, ' '),
    environ: readOr(`/proc/${pid}/environ`, ''),
    cwd,
  };
}

export function procTable(): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProc(Number(entry));
    if (info) table.set(info.pid, info);
  }
  return table;
}

/** This process and its ancestors: never candidates (clean must not kill whoever runs it). */
export function selfAndAncestors(table: Map<number, ProcInfo>, pid = process.pid): Set<number> {
  const chain = new Set<number>();
  let current: number | undefined = pid;
  while (current !== undefined && current > 0 && !chain.has(current)) {
    chain.add(current);
    current = table.get(current)?.ppid;
  }
  return chain;
}
