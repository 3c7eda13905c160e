/**
 * Workspace helpers shared by every backend: copying a baseline, hashing a tree (to prove the host
 * original is byte-identical after a staged trial), and diffing a written copy against its baseline.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, readFileSync, readlinkSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffSinceCopy, type CopyWindow } from './copy-diff.ts';
import { fileDigest, sha256 } from './file-digests.ts';
import { runHelper } from './launch/helper-command.ts';

export interface TreeEntry {
  type: 'file' | 'dir' | 'symlink' | 'other';
  mode: number;
  /** sha256 of file bytes or symlink target; '' for dirs. */
  digest: string;
}

/**
 * Inventory of a tree: relative path → entry. Ownership and mtimes are ignored (bytes and modes
 * matter). `reuseDigests` (for a baseline, never for a trial's copy): take unchanged files' digests
 * from file-digests.ts's cache.
 */
export function inventory(root: string, reuseDigests = false): Map<string, TreeEntry> {
  const entries = new Map<string, TreeEntry>();
  const walk = (relative: string) => {
    const absolute = relative ? join(root, relative) : root;
    for (const name of readdirSync(absolute).sort()) {
      const rel = relative ? `${relative}/${name}` : name;
      const stat = lstatSync(join(root, rel));
      const mode = stat.mode & 0o7777;
      if (stat.isDirectory()) {
        entries.set(rel, { type: 'dir', mode, digest: '' });
        walk(rel);
      } else if (stat.isSymbolicLink()) {
        entries.set(rel, { type: 'symlink', mode, digest: sha256(readlinkSync(join(root, rel))) });
      } else if (stat.isFile()) {
        entries.set(rel, { type: 'file', mode, digest: fileDigest(join(root, rel), stat, reuseDigests) });
      } else {
        entries.set(rel, { type: 'other', mode, digest: '' });
      }
    }
  };
  walk('');
  return entries;
}

/** One digest for a whole tree: equal digests ⇔ same paths, types, modes and bytes. */
export function treeDigest(root: string): string {
  const hash = createHash('sha256');
  for (const [path, entry] of inventory(root)) hash.update(`${path}\0${entry.type}\0${entry.mode}\0${entry.digest}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/** Relative paths that differ between two trees (sorted); paths gone from `candidate` end with " (deleted)". */
export function diffInventories(baseline: Map<string, TreeEntry>, candidate: Map<string, TreeEntry>): string[] {
  const changed: string[] = [];
  for (const [path, entry] of candidate) {
    const before = baseline.get(path);
    if (!before || before.type !== entry.type || before.digest !== entry.digest || before.mode !== entry.mode) {
      if (entry.type !== 'dir' || !before) changed.push(path);
    }
  }
  for (const path of baseline.keys()) if (!candidate.has(path)) changed.push(`${path} (deleted)`);
  return changed.sort();
}

/**
 * What changed in `candidate` (a copyWorkspace copy of `baseline`). For a copy this process made,
 * only the copy is walked, and only its entries whose ctime is outside cp's window are compared with
 * the baseline (copy-diff.ts); otherwise both trees are walked and every file hashed. Same result
 * either way (tested).
 */
export async function diffWorkspaces(baseline: string, candidate: string): Promise<string[]> {
  return (await diffWorkspacesVia(baseline, candidate)).changed;
}

/** diffWorkspaces, saying which way it went (`marked`: the copy walked, entries outside cp's window compared; `walk`: both trees, every file hashed). */
export async function diffWorkspacesVia(baseline: string, candidate: string): Promise<{ changed: string[]; via: 'marked' | 'walk' }> {
  const mark = takeCopyMark(candidate);
  if (mark) return { changed: diffSinceCopy(baseline, candidate, mark.window), via: 'marked' };
  return { changed: diffInventories(inventory(baseline, true), inventory(candidate)), via: 'walk' };
}

/**
 * When copyWorkspace ran, as the kernel stamps files: the ctimes the copy's root takes from a chmod
 * to its own mode right before `cp -a` starts and right after it returned. Every entry cp made has
 * a ctime in that window. Every later change to a copied entry (write, truncate, chmod, rename over
 * it, utimes to restore an mtime) moves its ctime to the window's end or later, and ctime cannot be
 * set from user space; what a directory moved in from elsewhere holds keeps ctimes from before the
 * window. So an entry whose ctime is inside the window is byte-for-byte what cp copied. A realtime
 * clock stepped back since (NTP) voids the rule: then the full walk runs. The chmods change nothing
 * else, and the diff never compares the root itself. (A marker file made and removed for the stamp
 * cost an inode per rollout: on ext4 without a journal each new inode scans past the ones freed in
 * the last minute, docs/harness-scale.md.)
 */
interface CopyMark {
  window: CopyWindow;
  /** realtime − monotonic at the mark, to see a clock step. */
  offsetNs: bigint;
}
const copyMarks = new Map<string, CopyMark>();
const COPY_MARKS_MAX = 10_000;
const realMinusMonotonicNs = () => BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

/** The ctime a chmod of `path` to its own mode gives it: the kernel's clock, as it stamps files. */
function stampCtime(path: string): bigint {
  chmodSync(path, lstatSync(path).mode & 0o7777);
  return lstatSync(path, { bigint: true }).ctimeNs;
}

function markCopy(destination: string, startNs: bigint): void {
  if (copyMarks.size >= COPY_MARKS_MAX) copyMarks.clear();
  copyMarks.set(destination, { window: { startNs, endNs: stampCtime(destination) }, offsetNs: realMinusMonotonicNs() });
}

function takeCopyMark(candidate: string): CopyMark | null {
  const mark = copyMarks.get(candidate) ?? null;
  copyMarks.delete(candidate);
  // Date.now() has 1 ms resolution: allow that much jitter before calling it a step back.
  if (mark && realMinusMonotonicNs() < mark.offsetNs - 5_000_000n) return null;
  return mark;
}

/**
 * Copy a baseline workspace (preserving modes, links and timestamps) into a fresh directory. `cp -a`
 * runs through the run's launcher when it has one (executors/launch/helper-command.ts): a spawn
 * from the large harness process costs it a fork of its address space, the copy itself is the
 * trial's work either way.
 */
export async function copyWorkspace(source: string, destination: string): Promise<void> {
  mkdirSync(destination, { recursive: true });
  const startNs = stampCtime(destination);
  await runHelper(['cp', '-a', '--', `${source}/.`, destination]);
  markCopy(destination, startNs);
}

/** Copy the named top-level entries of `source` (not the others) into `destination`, as copyWorkspace does. */
export async function copyEntries(source: string, names: readonly string[], destination: string): Promise<void> {
  mkdirSync(destination, { recursive: true });
  if (names.length === 0) return;
  for (const name of names) if (name === '' || name === '.' || name === '..' || name.includes('/')) throw new Error(`copyEntries: "${name}" is not an entry name of ${source}`);
  await runHelper(['cp', '-a', '-t', destination, '--', ...names.map((name) => join(source, name))]);
}

/**
 * A candidate file's bytes for CandidateFiles.read: null when it is missing or not a regular file
 * (a directory). Synchronous on purpose: candidate files are small, and fs/promises' readFile costs
 * four thread-pool round trips (≈ 0.13 ms of harness CPU here against 0.01 ms for this).
 */
export async function readCandidate(path: string): Promise<Buffer | null> {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/** Remove a tree (rm -rf, through the launcher when the run has one, so the harness never walks it). */
export async function removeTree(path: string): Promise<void> {
  if (path === '' || path === '/') throw new Error(`removeTree: refusing to remove "${path}"`);
  await runHelper(['rm', '-rf', '--', path]);
}
