/**
 * How a declared backend's workspace is made (`template.staging`), outside the timing (prepare_ms):
 * `copy` a full copy; `overlay` an overlayfs the adapter mounts on the host over the baseline;
 * `upper` nothing mounted here: the sandbox overlays {baseline} itself into {upper}/{work}.
 * Collecting reads the copy's differences or the overlay's upper layer.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { CandidateFiles, TrialContext } from '../../harness/contracts/executor.ts';
import type { BackendTemplate } from '../../harness/spec/backend-declaration.ts';
import { listUpperLayer } from '../overlay-upper.ts';
import { copyWorkspace, diffWorkspaces, readCandidate } from '../workspace-diff.ts';

export interface TemplateWorkspace {
  /** {workspace}: the host directory the sandbox shows as its workspace. */
  workspace: string;
  upper: string;
  work: string;
}

export function workspaceDirs(trial: TrialContext): TemplateWorkspace {
  return { workspace: join(trial.trialDir, 'workspace'), upper: join(trial.trialDir, 'upper'), work: join(trial.trialDir, 'work') };
}

export async function stageTemplateWorkspace(staging: BackendTemplate['staging'], trial: TrialContext): Promise<TemplateWorkspace> {
  const dirs = workspaceDirs(trial);
  if (staging === 'copy') {
    await copyWorkspace(trial.baselineWorkspace, dirs.workspace);
    return dirs;
  }
  for (const dir of [dirs.upper, dirs.work, dirs.workspace]) mkdirSync(dir, { recursive: true });
  if (staging === 'overlay') {
    const mounted = await execa('mount', ['-t', 'overlay', 'overlay', '-o', `lowerdir=${trial.baselineWorkspace},upperdir=${dirs.upper},workdir=${dirs.work}`, dirs.workspace], { reject: false });
    if (mounted.exitCode !== 0) throw new Error(`staging: overlay: mount failed: ${mounted.stderr.trim()} (the kernel needs overlayfs and the harness root)`);
  }
  return dirs;
}

export async function collectTemplateWorkspace(staging: BackendTemplate['staging'], trial: TrialContext): Promise<CandidateFiles> {
  const dirs = workspaceDirs(trial);
  if (staging === 'copy') {
    return { changed: await diffWorkspaces(trial.baselineWorkspace, dirs.workspace), read: (path) => readCandidate(join(dirs.workspace, path)), facts: { staging } };
  }
  return { changed: listUpperLayer(dirs.upper, trial.baselineWorkspace), read: (path) => readCandidate(join(dirs.upper, path)), facts: { staging, stage_upper: dirs.upper } };
}

/** Unmount the overlay (lazily: a sandbox process that outlived the kill must not keep it). Idempotent. */
export async function releaseTemplateWorkspace(staging: BackendTemplate['staging'], trial: TrialContext): Promise<void> {
  if (staging !== 'overlay') return;
  const { workspace } = workspaceDirs(trial);
  await execa('umount', ['-l', workspace], { reject: false });
}
