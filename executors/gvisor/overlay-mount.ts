/**
 * The gvisor workspace: a host overlayfs (lower = the baseline, never written) mounted before the
 * launch, outside timing, and unmounted when the trial finishes. The mount point lies in the trial's
 * `sandbench-<run>` scratch dir, so `clean` finds it should a run die with it mounted.
 */
import { readFileSync } from 'node:fs';
import { execa } from 'execa';

function unescapeMount(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function isMounted(mountPoint: string): boolean {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] !== undefined && unescapeMount(line.split(' ')[1]!) === mountPoint);
}

/** overlayfs option values cannot hold ',' or ':' (separators), nor '\\'. */
function checkOption(path: string): string {
  if (/[,:\\]/.test(path)) throw new Error(`overlay path ${JSON.stringify(path)} holds a ',', ':' or '\\' that overlayfs options cannot carry`);
  return path;
}

/** `lowers`: the overlay's lower layers, topmost first (overlayfs `lowerdir=a:b`). */
export async function mountOverlay(lowers: readonly string[], upper: string, work: string, merged: string): Promise<void> {
  const options = `lowerdir=${lowers.map(checkOption).join(':')},upperdir=${checkOption(upper)},workdir=${checkOption(work)}`;
  const result = await execa('mount', ['-t', 'overlay', 'overlay', '-o', options, merged], { reject: false, stdin: 'ignore' });
  if (result.exitCode !== 0) throw new Error(`mount overlay on ${merged}: ${result.stderr.trim()}`);
}

/** Idempotent; a busy mount (a sandbox still dying) is detached lazily rather than left behind. */
export async function unmount(mountPoint: string): Promise<void> {
  if (!isMounted(mountPoint)) return;
  const result = await execa('umount', [mountPoint], { reject: false, stdin: 'ignore' });
  if (result.exitCode === 0 || !isMounted(mountPoint)) return;
  const lazy = await execa('umount', ['-l', mountPoint], { reject: false, stdin: 'ignore' });
  if (lazy.exitCode !== 0 && isMounted(mountPoint)) throw new Error(`umount ${mountPoint}: ${lazy.stderr.trim() || result.stderr.trim()}`);
}
