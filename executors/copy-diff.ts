/**
 * The diff of a workspace copy against its baseline, from the copy's side: what the trial changed
 * since `cp -a` made the copy, found by walking the copy alone and reading the baseline only where
 * the copy moved.
 *
 * The rule: cp gave every entry it made a ctime inside the copy's window (from just before cp
 * started to just after it returned: workspace-diff.ts stamps both ends). Every change to a copied
 * entry (write, truncate, chmod, rename over it, utimes to put an mtime back, replacing it) gives
 * it a ctime at or after the window's end, and ctime cannot be set from user space; what a
 * directory moved in from elsewhere holds keeps ctimes from before the window. An entry whose ctime
 * is inside the window is what cp copied; a directory whose ctime is inside it still lists what cp
 * copied into it (adding, removing or renaming an entry moves its parent's ctime). So only entries
 * outside the window are compared with the baseline, and only directories outside it have their
 * listings compared. The copy's root always is: its ctime is the window's end.
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

/** The ctimes cp's entries have: from startNs (inclusive) to endNs (exclusive). */
export interface CopyWindow {
  startNs: bigint;
  endNs: bigint;
}

function typeOf(stat: Stats | BigIntStats): EntryType {
  if (stat.isDirectory()) return 'dir';
  if (stat.isSymbolicLink()) return 'symlink';
  return stat.isFile() ? 'file' : 'other';
}

/** The baseline's entry at `path`, or null when it has none (ENOTDIR: a parent of it is a file there). */
function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw error;
  }
}

/**
 * Relative paths that differ (sorted), as diffInventories names them: a changed or added entry by
 * its path (a directory only when the baseline has nothing there), an entry gone from the copy as
 * "<path> (deleted)".
 */
export function diffSinceCopy(baseline: string, copy: string, window: CopyWindow): string[] {
  const changed: string[] = [];
  // A baseline entry gone from the copy, and everything below it when it was a directory.
  const deleted = (path: string) => {
    changed.push(`${path} (deleted)`);
    if (lstatSync(`${baseline}/${path}`).isDirectory()) deletedBelow(path);
  };
  const deletedBelow = (rel: string) => {
    for (const name of readdirSync(`${baseline}/${rel}`)) deleted(`${rel}/${name}`);
  };
  const walk = (rel: string, listingMoved: boolean) => {
    const names = readdirSync(rel ? `${copy}/${rel}` : copy);
    if (listingMoved) {
      const before = lstatOrNull(rel ? `${baseline}/${rel}` : baseline);
      if (before?.isDirectory()) {
        const present = new Set(names);
        for (const name of readdirSync(rel ? `${baseline}/${rel}` : baseline)) if (!present.has(name)) deleted(rel ? `${rel}/${name}` : name);
      }
    }
    for (const name of names) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(`${copy}/${path}`, { bigint: true });
      const moved = stat.ctimeNs < window.startNs || stat.ctimeNs >= window.endNs;
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
