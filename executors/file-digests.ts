/**
 * File digests for the workspace diffs: sha256 of bytes, and the baseline cache that lets a diff
 * skip re-reading a baseline file it already hashed.
 */
import { createHash } from 'node:crypto';
import { readFileSync, type Stats } from 'node:fs';

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
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

/** The digest of a file's bytes; `cache` (for a baseline, never for a trial's copy) takes an unchanged file's from the cache above. */
export function fileDigest(path: string, stat: Stats, cache: boolean): string {
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
