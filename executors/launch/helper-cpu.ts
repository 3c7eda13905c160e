/**
 * CPU of the harness's long-lived helper processes (the native launcher), so a figure of "the
 * harness's CPU" includes the co-process it hands its spawns to. Read from /proc/<pid>/stat
 * utime + stime: the process's own time, not its reaped children's (cutime/cstime), because a
 * command the launcher runs — a trial, a workspace copy — is that trial's work, not the harness's.
 * The kernel scales its tick samples to the exact runtime; /proc shows them in USER_HZ ticks (100 per
 * second on every Linux ABI: 10 ms), so a delta is exact to one tick per process.
 */
import { readFileSync } from 'node:fs';
import { harnessHelperPids } from './timing-session.ts';

/** USER_HZ: fixed at 100 in the kernel's user ABI (it is not CONFIG_HZ). */
const TICK_MS = 10;

export interface ProcessCpu {
  pid: number;
  userMs: number;
  systemMs: number;
}

/** utime/stime of one process, or null when it is gone (or /proc is unreadable). */
export function processCpu(pid: number): ProcessCpu | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return { pid, userMs: utime * TICK_MS, systemMs: stime * TICK_MS };
}

/** A running tally of the helpers' CPU from `start()` on; `read()` gives the delta so far. */
export interface HelperCpuMeter {
  read(): { userMs: number; systemMs: number; pids: number[] };
}

/**
 * Start metering the harness's helper processes (today: the launcher, when the run has one). A
 * helper that exits before `read()` keeps its last reading, so its CPU up to then still counts.
 */
export function meterHelperCpu(pids: () => number[] = harnessHelperPids): HelperCpuMeter {
  const start = new Map<number, ProcessCpu>();
  const last = new Map<number, ProcessCpu>();
  for (const pid of pids()) {
    const cpu = processCpu(pid);
    if (cpu) {
      start.set(pid, cpu);
      last.set(pid, cpu);
    }
  }
  return {
    read() {
      for (const pid of pids()) {
        const cpu = processCpu(pid);
        if (!cpu) continue;
        // A helper that appeared after start() (a launcher started mid-cell) counts from zero.
        if (!start.has(pid)) start.set(pid, { pid, userMs: 0, systemMs: 0 });
        last.set(pid, cpu);
      }
      let userMs = 0;
      let systemMs = 0;
      for (const [pid, now] of last) {
        const from = start.get(pid)!;
        userMs += now.userMs - from.userMs;
        systemMs += now.systemMs - from.systemMs;
      }
      return { userMs, systemMs, pids: [...last.keys()] };
    },
  };
}
