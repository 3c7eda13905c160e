/**
 * The diff of a workspace copy against its baseline, from the copy's side: what the trial changed
 * since `cp -a` made the copy, found by walking the copy alone and reading the baseline only where
 * the copy moved.
 *
 * The rule: every change to a copied entry (write, truncate, chmod, rename over it, utimes to put an
 * mtime back, replacing it) gives the copy's entry a ctime at or after the copy's mark, and ctime
 * cannot be set from user space. An entry whose ctime is before the mark is what cp copied; a
 * directory whose ctime is before the mark still lists what cp copied into it (adding, removing or
 * renaming an entry moves its parent's ctime). So only entries at or after the mark are compared
 * with the baseline, and only directories at or after the mark have their listings compared. The
 * copy's root always is: its ctime is the mark itself.
 *
 * The result equals a full walk of both trees compared entry by entry (diffInventories), as long as
 * the baseline is not written during the trial: an unchanged entry of the copy is compared with the
 * baseline as it was copied. A rollout cell proves its baselines unchanged (baseline_unchanged).
 *
 * Why not `find` over both trees through the launcher, as before: for a built-in task (47 entries)
 * its round trip and the parse of its records cost more harness and launcher CPU than this walk's
 * lstat calls, and listing the baseline for every trial is work this walk does not need
 * (docs/harness-scale.md, seventh round).
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, type BigIntStats, type Stats } from 'node:fs';
import { fileDigest, sha256 } from './file-digests.ts';

type EntryType = 'file' | 'dir' | 'symlink' | 'other';

function typeOf(stat: Stats | BigIntStats): EntryType {
  if (stat.isDirectory()) return 'dir';
  if (stat.isSymbolicLink()) return 'symlink';
  return stat.isFile() ? 'file' : 'other';
}

function lstatOrNull(path: string): Stats | null {
  return lstatSync(path, { throwIfNoEntry: false }) ?? null;
}

/**
 * Relative paths that differ (sorted), as diffInventories names them: a changed or added entry by
 * its path (a directory only when the baseline has nothing there), an entry gone from the copy as
 * "<path> (deleted)".
 */
export function diffSinceCopy(baseline: string, copy: string, markCtimeNs: bigint): string[] {
  const changed: string[] = [];
  const deletedBelow = (rel: string) => {
    for (const name of readdirSync(`${baseline}/${rel}`)) {
      const path = `${rel}/${name}`;
      changed.push(`${path} (deleted)`);
      if (lstatSync(`${baseline}/${path}`).isDirectory()) deletedBelow(path);
    }
  };
  const walk = (rel: string, listingMoved: boolean) => {
    const names = readdirSync(rel ? `${copy}/${rel}` : copy);
    if (listingMoved) {
      const before = lstatOrNull(rel ? `${baseline}/${rel}` : baseline);
      if (before?.isDirectory()) {
        const present = new Set(names);
        for (const name of readdirSync(rel ? `${baseline}/${rel}` : baseline)) {
          if (present.has(name)) continue;
          const path = rel ? `${rel}/${name}` : name;
          changed.push(`${path} (deleted)`);
          if (lstatSync(`${baseline}/${path}`).isDirectory()) deletedBelow(path);
        }
      }
    }
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(`${copy}/${path}`, { bigint: true });
      const moved = stat.ctimeNs >= markCtimeNs;
      if (moved) compareEntry(path, stat);
      if (stat.isDirectory()) walk(path, moved);
    }
  };
  const compareEntry = (path: string, stat: BigIntStats) => {
    const before = lstatOrNull(`${baseline}/${path}`);
    const type = typeOf(stat);
    if (!before) {
      changed.push(path);
      return;
    }
    const beforeType = typeOf(before);
    // A directory is named only when it is new; what is in it is compared entry by entry.
    if (type === 'dir') return;
    if (beforeType === 'dir') deletedBelow(path);
    if (beforeType !== type || (before.mode & 0o7777) !== Number(stat.mode & 0o7777n) || !sameContent(path, type, before, stat)) changed.push(path);
  };
  const sameContent = (path: string, type: EntryType, before: Stats, stat: BigIntStats): boolean => {
    if (type === 'symlink') return readlinkSync(`${baseline}/${path}`) === readlinkSync(`${copy}/${path}`);
    if (type !== 'file') return true;
    if (BigInt(before.size) !== stat.size) return false;
    return fileDigest(`${baseline}/${path}`, before, true) === sha256(readFileSync(`${copy}/${path}`));
  };
  walk('', true);
  return changed.sort();
}
