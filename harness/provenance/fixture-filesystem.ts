/**
 * The filesystem under a run's fixture (scratch) root, as a reader needs it next to a CPU figure:
 * every run records it (environment.json `fixtures.filesystem`), and the harness-scale bench names it
 * beside every row.
 *
 * The harness creates and removes per-attempt directories on the fixture root. What one inode costs
 * is the filesystem's: on ext4 without a journal, each new inode scans past the inodes freed in the
 * last minute. So the same harness pays a different system time on a different root, and a host
 * workspace copy or a staged overlay is as fast as the filesystem under it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, resolve, sep } from 'node:path';

export interface FixtureFilesystem {
  path: string;
  type: string;
  source: string;
  mountPoint: string;
  /** ext3/ext4 only: a jbd2 journal is running for the device (/proc/fs/jbd2/<dev>-*); null where it does not apply. */
  journal: boolean | null;
}

/** The mount that holds `path` (the longest mount point that is a prefix of it). */
export function fixtureFilesystem(path: string, mounts = readFileSync('/proc/self/mounts', 'utf8')): FixtureFilesystem {
  const target = resolve(path);
  let best: { source: string; mountPoint: string; type: string } | null = null;
  for (const line of mounts.split('\n')) {
    const [source, mountPoint, type] = line.split(' ');
    if (!source || !mountPoint || !type) continue;
    const inside = mountPoint === '/' || target === mountPoint || target.startsWith(`${mountPoint}${sep}`);
    if (inside && (!best || mountPoint.length >= best.mountPoint.length)) best = { source, mountPoint, type };
  }
  if (!best) return { path: target, type: 'unknown', source: 'unknown', mountPoint: '/', journal: null };
  return { path: target, ...best, journal: /^ext[34]$/.test(best.type) ? hasJournal(best.source) : null };
}

function hasJournal(source: string): boolean {
  const device = basename(source);
  return existsSync('/proc/fs/jbd2') && readdirSync('/proc/fs/jbd2').some((entry) => entry.startsWith(`${device}-`));
}

export function describeFilesystem(fs: FixtureFilesystem): string {
  const journal = fs.journal === null ? '' : fs.journal ? ', journal' : ', no journal';
  return `${fs.type}${journal} (${fs.source} on ${fs.mountPoint})`;
}
