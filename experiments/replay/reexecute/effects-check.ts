/**
 * Side effects of a re-executed prefix (issue 19): the workspace must hold exactly the prefix's
 * effects (the generator's ground truth: every expected file with its exact bytes, the opaque
 * directories present, nothing else changed or deleted), and nothing may appear outside the
 * workspace on the host (a new entry beside the workspace in the trial directory, or any change to
 * the baseline the trial was staged from, is a boundary failure).
 */
import { readdirSync } from 'node:fs';
import type { CandidateFiles } from '../../../harness/contracts/executor.ts';
import type { ExpectedEffects } from '../fixture-task.ts';

export interface EffectsVerdict {
  exact: boolean;
  /** Changed paths the ground truth does not expect (created, modified or `(deleted)`). */
  unexpected: string[];
  /** Expected files absent or with other bytes. */
  missing: string[];
  /** Opaque directories that should exist and do not show as created. */
  missingDirs: string[];
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

export async function checkEffects(candidates: CandidateFiles, expected: ExpectedEffects, baseline: Record<string, string>): Promise<EffectsVerdict> {
  // a file rewritten with its baseline bytes is no effect at all
  const effectFiles = Object.entries(expected.files).filter(([path, bytes]) => baseline[path] !== bytes);
  const expectedPaths = new Set(effectFiles.map(([path]) => path));
  const unexpected = candidates.changed.filter((path) => !expectedPaths.has(path) && !expected.opaqueDirs.some((dir) => under(path, dir)));
  const missing: string[] = [];
  for (const [path, bytes] of effectFiles) {
    const content = await candidates.read(path);
    if (content === null || content.toString('utf8') !== bytes) missing.push(path);
  }
  const missingDirs = expected.opaqueDirs.filter((dir) => !candidates.changed.some((path) => under(path, dir)));
  return { exact: unexpected.length === 0 && missing.length === 0 && missingDirs.length === 0, unexpected, missing, missingDirs };
}

/** Top-level names of the trial directory: taken after staging and again after exit. */
export function trialDirEntries(trialDir: string): Set<string> {
  try {
    return new Set(readdirSync(trialDir));
  } catch {
    return new Set();
  }
}

/** Names that appeared beside the workspace while the prefix ran (the sandbox wrote outside it). */
export function outsideEntries(before: Set<string>, after: Set<string>): string[] {
  return [...after].filter((name) => !before.has(name)).sort();
}
