/**
 * Reading an overlayfs upper layer as "what the task changed": every file, symlink or new directory
 * in it, and whiteouts (0:0 character devices) as deleted paths. Used by every staging backend.
 */
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TrialContext } from '../harness/contracts/executor.ts';

/** The directories of a trial's overlay: the upper layer (the candidate files), its work dir, and the merged view. */
export interface OverlayStageDirs {
  upper: string;
  work: string;
  merged: string;
}

/** Where a staging backend (staged, gvisor) keeps a trial's overlay: inside the trial's scratch dir, removed with it. */
export function overlayStageDirs(trial: Pick<TrialContext, 'trialDir'>): OverlayStageDirs {
  return { upper: join(trial.trialDir, 'upper'), work: join(trial.trialDir, 'work'), merged: join(trial.trialDir, 'merged') };
}

function isWhiteout(path: string): boolean {
  const stat = lstatSync(path);
  return stat.isCharacterDevice() && stat.rdev === 0;
}

export function listUpperLayer(upper: string, baseline: string): string[] {
  const changed: string[] = [];
  const walk = (relative: string) => {
    for (const name of readdirSync(relative ? join(upper, relative) : upper).sort()) {
      const rel = relative ? `${relative}/${name}` : name;
      const path = join(upper, rel);
      if (isWhiteout(path)) changed.push(`${rel} (deleted)`);
      else if (lstatSync(path).isDirectory()) {
        if (!existsSync(join(baseline, rel))) changed.push(rel);
        walk(rel);
      } else changed.push(rel);
    }
  };
  if (existsSync(upper)) walk('');
  return changed.sort();
}
