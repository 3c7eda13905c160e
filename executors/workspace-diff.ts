/**
 * Workspace helpers shared by every backend: copying a baseline, hashing a tree (to prove the host
 * original is byte-identical after a staged trial), and diffing a written copy against its baseline.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, mkdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { runHelper } from './launch/helper-command.ts';

export interface TreeEntry {
  type: 'file' | 'dir' | 'symlink' | 'other';
  mode: number;
  /** sha256 of file bytes or symlink target; '' for dirs. */
  digest: string;
}

/**
 * File digests of baselines, reused while the file's inode, size, mtime and ctime are unchanged (as
 * git's index does): a baseline is diffed against every trial's copy, and re-reading and re-hashing
 * it each time was harness CPU per trial. ctime cannot be set from user space and moves on every
 * write, so a changed file always misses. A file whose ctime is within RACY_MS of the moment it was
 * hashed is never remembered (a write in the same clock tick would keep its stamps: git's "racily
 * clean" case). treeDigest — the proof that a baseline is untouched — never uses this.
 */
const digestCache = new Map<string, { key: string; digest: string }>();
const RACY_MS = 2000;
const DIGEST_CACHE_MAX = 200_000;

function statKey(stat: Stats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
}

function fileDigest(path: string, stat: Stats, cache: boolean): string {
  if (!cache) return sha256(readFileSync(path));
  const key = statKey(stat);
  const known = digestCache.get(path);
  if (known?.key === key) return known.digest;
  const digest = sha256(readFileSync(path));
  if (Date.now() - stat.ctimeMs > RACY_MS) {
    if (digestCache.size >= DIGEST_CACHE_MAX) digestCache.clear();
    digestCache.set(path, { key, digest });
  }
  return digest;
}

/**
 * Inventory of a tree: relative path → entry. Ownership and mtimes are ignored (bytes and modes
 * matter). `reuseDigests` (for a baseline, never for a trial's copy): take unchanged files' digests
 * from the cache above.
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

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
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

export async function diffWorkspaces(baseline: string, candidate: string): Promise<string[]> {
  return diffInventories(inventory(baseline, true), inventory(candidate));
}

/**
 * Copy a baseline workspace (preserving modes, links and timestamps) into a fresh directory. `cp -a`
 * runs through the run's launcher when it has one (executors/launch/helper-command.ts): a spawn
 * from the large harness process costs it a fork of its address space, the copy itself is the
 * trial's work either way.
 */
export async function copyWorkspace(source: string, destination: string): Promise<void> {
  mkdirSync(destination, { recursive: true });
  await runHelper(['cp', '-a', '--', `${source}/.`, destination]);
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
