/** File operations on a cgroup tree, behind an interface so the v2 logic runs against a temp directory in tests. */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CgroupIo {
  read(path: string): string | null;
  write(path: string, value: string): void;
  exists(path: string): boolean;
  mkdir(path: string): void;
  rmdir(path: string): void;
  /** Names of sub-directories (child cgroups). */
  subdirs(path: string): string[];
}

export const nodeCgroupIo: CgroupIo = {
  read(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  },
  // cgroupfs wants one write() per value; writeFileSync does exactly that for short strings.
  write: (path, value) => writeFileSync(path, value),
  exists: (path) => existsSync(path),
  mkdir: (path) => mkdirSync(path),
  rmdir: (path) => rmdirSync(path),
  // The entry types readdir already returns (cgroupfs fills d_type): a v1 cgroup dir holds ~30 files,
  // and a stat of each cost ≈ 0.6 ms of harness CPU per attempt cgroup's teardown (issue 33 profile).
  // Only a symlink is followed, as stat did.
  subdirs(path) {
    try {
      return readdirSync(path, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() || (entry.isSymbolicLink() && isDirectory(`${path}/${entry.name}`)))
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  },
};

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Remove a cgroup directory and every child cgroup under it; what could not be removed goes to
 * `failures` as "<dir>: <reason>". The rmdir comes first: a cgroup's own files never keep it from
 * going, only child cgroups and live tasks do (EBUSY; ENOTEMPTY is what a plain directory standing
 * in for cgroupfs in a test says), and a directory already gone is no failure (ENOENT). So an
 * attempt's cgroup, which has no children unless a container runtime made them, costs one syscall
 * per hierarchy instead of an existence check, a listing of its ~30 files and the rmdir (with the
 * attempt's procs read skipped too: 0.259 → 0.231 ms of harness CPU per attempt cgroup in
 * harness-steps, docs/harness-scale.md).
 */
export function removeCgroupTree(io: CgroupIo, dir: string, failures: string[]): void {
  const first = rmdirError(io, dir);
  if (first === null || first.code === 'ENOENT') return;
  if (first.code === 'EBUSY' || first.code === 'ENOTEMPTY') {
    for (const sub of io.subdirs(dir)) removeCgroupTree(io, join(dir, sub), failures);
    const second = rmdirError(io, dir);
    if (second === null || second.code === 'ENOENT') return;
    failures.push(`${dir}: ${second.message}`);
    return;
  }
  failures.push(`${dir}: ${first.message}`);
}

function rmdirError(io: CgroupIo, dir: string): NodeJS.ErrnoException | null {
  try {
    io.rmdir(dir);
    return null;
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
}

/** OOM kills counted in one memory cgroup (v1 memory.oom_control, v2 memory.events: the `oom_kill` line). */
export function oomKillsIn(io: CgroupIo, version: 1 | 2, memoryDir: string): number {
  const file = version === 1 ? 'memory.oom_control' : 'memory.events';
  const match = /^oom_kill (\d+)$/m.exec(io.read(join(memoryDir, file)) ?? '');
  return match ? Number(match[1]) : 0;
}

/** Every PID in a memory cgroup and its sub-cgroups (a container runtime's libpod-<id>, conmon). */
export function procsUnder(io: CgroupIo, memoryDir: string): number[] {
  const out: number[] = [];
  const walk = (dir: string) => {
    for (const line of (io.read(join(dir, 'cgroup.procs')) ?? '').split('\n')) if (line.trim()) out.push(Number(line));
    for (const sub of io.subdirs(dir)) walk(join(dir, sub));
  };
  walk(memoryDir);
  return out;
}
