/**
 * Candidates after scoring: the changed files of one attempt, extracted from the executor's collect
 * (minus the repository's .git and the kind's own meta directory), held in memory for the evaluator, and — per the retain policy — kept in a content-addressed store in the bundle
 * (`candidates/objects/<sha256>`, one object per distinct file content, so identical candidates cost
 * their bytes once) with a per-attempt manifest line; a dropped candidate leaves nothing.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CandidateFiles as CollectedFiles } from '../../harness/contracts/executor.ts';
import { ROLLOUT_META_DIR } from './task-contract.ts';

export const CANDIDATE_STORE_DIR = 'candidates';
export const CANDIDATE_MANIFEST_FILE = 'rollout-candidates.jsonl';
const DELETED_SUFFIX = ' (deleted)';

export interface ExtractedCandidate {
  readonly changed: readonly string[];
  readonly deleted: readonly string[];
  /** The changed files' bytes: the evaluator writes them straight into its scoring workspace. */
  readonly contents: ReadonlyMap<string, Buffer>;
  /** sha256 over the sorted (path, content digest) list and the deletions: equal candidates ⇔ equal digests. */
  readonly digest: string;
  /** Sum of the changed files' sizes. */
  readonly bytes: number;
  readonly files: readonly { path: string; sha256: string; bytes: number }[];
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

/** Paths the kind never treats as the agent's work: git's own bookkeeping and the meta dir (prompt, trajectory). */
export function isCandidatePath(path: string): boolean {
  return !(path === '.git' || path.startsWith('.git/') || path === ROLLOUT_META_DIR || path.startsWith(`${ROLLOUT_META_DIR}/`));
}

/** Read the collected changes into memory (workspace-relative paths). `dropLast` loses the lexically last changed file (the faulty variant). */
export async function extractCandidate(collected: CollectedFiles, dropLast = false): Promise<ExtractedCandidate> {
  const deleted: string[] = [];
  const changed: string[] = [];
  const contents = new Map<string, Buffer>();
  const files: { path: string; sha256: string; bytes: number }[] = [];
  const paths = [...collected.changed].sort();
  for (const entry of paths) {
    if (entry.endsWith(DELETED_SUFFIX)) {
      const path = entry.slice(0, -DELETED_SUFFIX.length);
      if (isCandidatePath(path)) deleted.push(path);
      continue;
    }
    if (!isCandidatePath(entry)) continue;
    const content = await collected.read(entry);
    if (content === null) continue; // a new directory, not a file
    changed.push(entry);
    contents.set(entry, content);
    files.push({ path: entry, sha256: sha256(content), bytes: content.length });
  }
  if (dropLast && files.length > 0) {
    files.pop();
    contents.delete(changed.pop()!);
  }
  const digest = sha256([...files.map((f) => `${f.path}\0${f.sha256}`), ...deleted.map((path) => `${path}\0deleted`)].join('\n'));
  return { changed, deleted, contents, files, digest: `sha256:${digest}`, bytes: files.reduce((sum, f) => sum + f.bytes, 0) };
}

export interface StoredCandidate {
  /** Bytes this candidate added to the store (objects not already there). */
  newBytes: number;
  objects: number;
}

/** Keep a candidate: its file objects (content-addressed, written once) and one manifest line. */
export function retainCandidate(bundleDir: string, attemptId: string, candidate: ExtractedCandidate, extra: Record<string, unknown> = {}): StoredCandidate {
  const objects = join(bundleDir, CANDIDATE_STORE_DIR, 'objects');
  mkdirSync(objects, { recursive: true });
  let newBytes = 0;
  for (const file of candidate.files) {
    const target = join(objects, file.sha256);
    if (existsSync(target)) continue;
    // write-then-rename: a concurrent writer of the same object never sees half a file
    const partial = `${target}.${process.pid}.${attemptId}.partial`;
    writeFileSync(partial, candidate.contents.get(file.path)!);
    renameSync(partial, target);
    newBytes += file.bytes;
  }
  const line = { attempt_id: attemptId, digest: candidate.digest, bytes: candidate.bytes, files: candidate.files, deleted: candidate.deleted, ...extra };
  appendFileSync(join(bundleDir, CANDIDATE_MANIFEST_FILE), `${JSON.stringify(line)}\n`);
  return { newBytes, objects: candidate.files.length };
}

/** Store one blob (a trajectory) in the same object store; returns its digest. */
export function storeObject(bundleDir: string, content: Buffer): { sha256: string; bytes: number; isNew: boolean } {
  const objects = join(bundleDir, CANDIDATE_STORE_DIR, 'objects');
  mkdirSync(objects, { recursive: true });
  const digest = sha256(content);
  const target = join(objects, digest);
  if (existsSync(target)) return { sha256: digest, bytes: content.length, isNew: false };
  const partial = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
  writeFileSync(partial, content);
  renameSync(partial, target);
  return { sha256: digest, bytes: content.length, isNew: true };
}

/** One stored blob by digest (a trajectory storeObject kept); null when the store does not hold it. */
export function readObject(bundleDir: string, digest: string): Buffer | null {
  const path = join(bundleDir, CANDIDATE_STORE_DIR, 'objects', digest);
  return existsSync(path) ? readFileSync(path) : null;
}
