/**
 * Workspace helpers shared by every backend: copying a baseline, hashing a tree (to prove the host
 * original is byte-identical after a staged trial), and diffing a written copy against its baseline.
 */
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, readdirSync, readFileSync, readlinkSync, mkdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { helperPath, runHelper } from './launch/helper-command.ts';

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

/**
 * What changed in `candidate` (a copyWorkspace copy of `baseline`). With the run's launcher and a
 * copy made by this process, the walk of both trees is one `find` through the launcher (its CPU is
 * the trial's collect, like the copy's) and only entries changed since the copy are read and hashed
 * here; otherwise both trees are walked and hashed in-process. Same result either way (tested).
 */
export async function diffWorkspaces(baseline: string, candidate: string): Promise<string[]> {
  return (await diffWorkspacesVia(baseline, candidate)).changed;
}

/** diffWorkspaces, saying which way it went (`find`: the launcher's find + changed entries only; `walk`: in-process). */
export async function diffWorkspacesVia(baseline: string, candidate: string): Promise<{ changed: string[]; via: 'find' | 'walk' }> {
  const mark = takeCopyMark(candidate);
  if (mark && helperPath() === 'launcher') {
    const fast = await diffSinceCopy(baseline, candidate, mark).catch(() => null);
    if (fast) return { changed: fast, via: 'find' };
  }
  return { changed: diffInventories(inventory(baseline, true), inventory(candidate)), via: 'walk' };
}

/**
 * When copyWorkspace finished, as the kernel stamps files: the ctime the copy's root takes from a
 * chmod to its own mode, right after `cp -a` returned. Every later change to a copied entry (write,
 * truncate, chmod, rename over it, utimes to restore an mtime) moves that entry's ctime to at least
 * this stamp, and ctime cannot be set from user space; an entry whose ctime is still below it is
 * byte-for-byte what cp copied. A realtime clock stepped back since (NTP) voids the rule: then the
 * full walk runs. The chmod changes nothing else, and the diff never compares the root itself. (A
 * marker file made and removed for the stamp cost an inode per rollout: on ext4 without a journal
 * each new inode scans past the ones freed in the last minute, docs/harness-scale.md.)
 */
interface CopyMark {
  ctimeNs: bigint;
  /** realtime − monotonic at the mark, to see a clock step. */
  offsetNs: bigint;
}
const copyMarks = new Map<string, CopyMark>();
const COPY_MARKS_MAX = 10_000;
const realMinusMonotonicNs = () => BigInt(Date.now()) * 1_000_000n - process.hrtime.bigint();

function markCopy(destination: string): void {
  chmodSync(destination, lstatSync(destination).mode & 0o7777);
  if (copyMarks.size >= COPY_MARKS_MAX) copyMarks.clear();
  copyMarks.set(destination, { ctimeNs: lstatSync(destination, { bigint: true }).ctimeNs, offsetNs: realMinusMonotonicNs() });
}

function takeCopyMark(candidate: string): CopyMark | null {
  const mark = copyMarks.get(candidate) ?? null;
  copyMarks.delete(candidate);
  // Date.now() has 1 ms resolution: allow that much jitter before calling it a step back.
  if (mark && realMinusMonotonicNs() < mark.offsetNs - 5_000_000n) return null;
  return mark;
}

/**
 * find -printf fields, NUL-separated (NUL cannot occur in a name or a link target). No start-point
 * field (%H): find lists each start point itself first, as the one record whose %P is empty, so
 * those records divide the two trees. Repeating the start path in every record made it half of all
 * the launcher's event bytes in a rollout.
 */
const FIND_FORMAT = '%y\\0%m\\0%D:%i:%s:%T@\\0%C@\\0%l\\0%P\\0';
const FIND_FIELDS = 6;
const typeOf = (letter: string): TreeEntry['type'] => (letter === 'f' ? 'file' : letter === 'd' ? 'dir' : letter === 'l' ? 'symlink' : 'other');
/** "1764547200.1234567890" → ns, exactly. */
function secondsToNs(text: string): bigint {
  const [sec, frac = ''] = text.split('.');
  return BigInt(sec!) * 1_000_000_000n + BigInt(frac.padEnd(9, '0').slice(0, 9));
}
/** Baseline file digests by find's stat key (dev:ino:size:mtime:ctime), as the lstat-keyed cache above. */
const foundDigests = new Map<string, { key: string; digest: string }>();

async function diffSinceCopy(baseline: string, candidate: string, mark: CopyMark): Promise<string[]> {
  const { stdout } = await runHelper(['find', baseline, candidate, '-printf', FIND_FORMAT]);
  const fields = stdout.split('\0');
  const base = new Map<string, TreeEntry & { ctimeNs: bigint }>();
  const cand = new Map<string, TreeEntry>();
  const racyBeforeNs = BigInt(Date.now() - RACY_MS) * 1_000_000n;
  let startPoints = 0;
  for (let i = 0; i + FIND_FIELDS <= fields.length; i += FIND_FIELDS) {
    const [letter, modeText, fileKey, ctimeText, link, rel] = fields.slice(i, i + FIND_FIELDS) as [string, string, string, string, string, string];
    if (rel === '') {
      startPoints += 1;
      continue;
    }
    const type = typeOf(letter);
    const mode = parseInt(modeText, 8);
    const ctimeNs = secondsToNs(ctimeText);
    if (startPoints === 1) {
      let digest = '';
      if (type === 'symlink') digest = sha256(link);
      else if (type === 'file') {
        const path = join(baseline, rel);
        const key = `${fileKey}:${ctimeText}`;
        const known = foundDigests.get(path);
        if (known?.key === key) digest = known.digest;
        else {
          digest = sha256(readFileSync(path));
          if (ctimeNs < racyBeforeNs) {
            if (foundDigests.size >= DIGEST_CACHE_MAX) foundDigests.clear();
            foundDigests.set(path, { key, digest });
          }
        }
      }
      base.set(rel, { type, mode, digest, ctimeNs });
    } else if (startPoints === 2) {
      const before = base.get(rel);
      // find lists the baseline's records first (start points in order), so `before` is known here.
      const untouched = before !== undefined && before.type === type && ctimeNs < mark.ctimeNs && before.ctimeNs < mark.ctimeNs;
      const digest = type === 'symlink' ? sha256(link) : type !== 'file' ? '' : untouched ? before.digest : sha256(readFileSync(join(candidate, rel)));
      cand.set(rel, { type, mode, digest });
    } else throw new Error(`find printed a record before its first start point, or a third start point (${startPoints})`);
  }
  if (startPoints !== 2) throw new Error(`find listed ${startPoints} start points of 2`);
  return diffInventories(base, cand);
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
  markCopy(destination);
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
