/** Mount points currently in the host's mount table (for teardown proofs: "no mount left behind"). */
import { readFileSync } from 'node:fs';

/** Mount points from /proc/<pid>/mountinfo (field 5) of that process's mount namespace, octal escapes decoded. */
export function mountPoints(pid: number | 'self' = 'self'): string[] {
  return readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => (line.split(' ')[4] ?? '').replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8))));
}

/** Mount points at or below `dir`, deepest first (the order to unmount them in). */
export function mountsUnder(dir: string, pid: number | 'self' = 'self'): string[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return mountPoints(pid)
    .filter((point) => point === dir || point.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
