/**
 * One digest of "the workspace at the branch point", computed the same way for all three ways of
 * reaching it (issue 19): sha256 over the sorted `path\0sha256(content)\n` lines of every file,
 * plus every named path read by name (`-` when absent) — the checkpoint state program's own
 * `files` digest (experiments/checkpoint/state_server.py tree_digest), so a forked child, which can
 * only be asked from inside its sandbox, and a replayed or from-scratch workspace, read on the host
 * from the executor's collected changes over the baseline, compare byte for byte. Harness-owned
 * directories (the state program's `.sandbench/`, the replay's meta directory) are left out.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CandidateFiles } from '../../../../harness/contracts/executor.ts';
import type { ExpectedEffects } from '../../fixture-task.ts';

/** Top-level directories no way's digest includes (the state program's, the replay's, ext4's). */
export const DIGEST_EXCLUDED = ['.sandbench', '.sandbench-replay', 'lost+found'];

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const excluded = (path: string) => DIGEST_EXCLUDED.some((dir) => path === dir || path.startsWith(`${dir}/`));

/** state_server.py's tree_digest over a path → content map. */
export function stateDigest(files: ReadonlyMap<string, Buffer | string>, named: readonly string[]): string {
  const entries = new Map<string, string>();
  for (const [path, content] of files) if (!excluded(path)) entries.set(path, sha256(content));
  for (const path of named) entries.set(path, files.has(path) ? sha256(files.get(path)!) : '-');
  return sha256([...entries.keys()].sort().map((path) => `${path}\0${entries.get(path)}\n`).join(''));
}

/** Every file below a host directory, by relative path. */
export function filesOf(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path), readFileSync(path));
    }
  };
  walk(root);
  return files;
}

/** Paths every way reads by name: the baseline's files and the prefix's effects. */
export function namedPaths(baseline: ReadonlyMap<string, unknown>, effects: ExpectedEffects): string[] {
  return [...new Set([...baseline.keys(), ...Object.keys(effects.files)])].filter((p) => !excluded(p)).sort();
}

/** The branch point's digest from the ground truth: the baseline with the prefix's effects laid over. */
export function expectedDigest(baseline: ReadonlyMap<string, Buffer>, effects: ExpectedEffects): string {
  const files = new Map<string, Buffer | string>(baseline);
  for (const [path, bytes] of Object.entries(effects.files)) files.set(path, bytes);
  return stateDigest(files, namedPaths(baseline, effects));
}

/** A sandbox's workspace as the baseline plus the executor's collected changes. */
export async function collectedDigest(baseline: ReadonlyMap<string, Buffer>, candidates: CandidateFiles, named: readonly string[]): Promise<string> {
  const files = new Map<string, Buffer | string>(baseline);
  for (const entry of candidates.changed) {
    if (entry.endsWith(' (deleted)')) {
      files.delete(entry.slice(0, -' (deleted)'.length));
      continue;
    }
    if (excluded(entry)) continue;
    const content = await candidates.read(entry);
    if (content !== null) files.set(entry, content);
  }
  return stateDigest(files, named);
}
