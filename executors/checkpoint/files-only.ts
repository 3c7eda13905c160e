/**
 * What the two files-only mechanisms (staged, host) share: the parent's state process is stopped
 * at the checkpoint (its files are frozen; its memory is not kept, and the mechanism says so), and
 * every child starts a fresh state process on its own copy-on-write view of the frozen files.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { treeDigest } from '../workspace-diff.ts';
import type { StateProcess } from './state-process.ts';
import type { CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { stopStateProcess } from './state-process.ts';
import { TrialResources } from './tracked.ts';

/** Where a files-only mechanism keeps the parent's frozen files (layer or copy) of a trial. */
export const frozenOf = (trial: MechanismTrial) => join(trial.dir, 'frozen');

/**
 * Per-trial resources and the shared tail of a files-only mechanism's lifecycle: digest of the
 * frozen files, closing a child, and discarding a trial (release what it started, remove its dir).
 * gVisor's mechanism shares it too: it also freezes an overlay upper, and only its children differ.
 */
export function filesOnlyLifecycle(label: string): {
  resourcesOf(trial: MechanismTrial): TrialResources;
} & Pick<CheckpointMechanism, 'frozenDigest' | 'destroy' | 'discard' | 'teardown'> {
  const resources = new Map<string, TrialResources>();
  return {
    resourcesOf(trial) {
      if (!resources.has(trial.trialId)) resources.set(trial.trialId, new TrialResources(trial.run.cleanup));
      return resources.get(trial.trialId)!;
    },
    async frozenDigest(trial) {
      return treeDigest(frozenOf(trial));
    },
    async destroy(_trial, sandbox) {
      await sandbox.channel.close();
    },
    async discard(trial) {
      const tracked = resources.get(trial.trialId);
      resources.delete(trial.trialId);
      const errors = tracked ? await tracked.releaseAll() : [];
      rmSync(trial.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      if (errors.length > 0) throw new Error(`${label} checkpoint cleanup: ${errors.join('; ')}`);
    },
    async teardown() {},
  };
}

export function sandboxOf(id: string, process: StateProcess, facts: Record<string, unknown>): Sandbox {
  return { id, channel: process.channel, pids: async () => process.running.rootPids(), facts };
}

export function parentOf(id: string, process: StateProcess, facts: Record<string, unknown>): ParentSandbox {
  return { ...sandboxOf(id, process, facts), internal: process };
}

export async function stopParent(parent: ParentSandbox): Promise<void> {
  await stopStateProcess(parent.internal as StateProcess);
}

/** Apparent bytes of a tree (du -sb): what the frozen layer/copy holds. */
export async function treeBytes(dir: string): Promise<number> {
  const { stdout } = await execa('du', ['-sb', dir]);
  return Number.parseInt(stdout.split(/\s/)[0]!, 10);
}

/** Host bytes actually allocated (du -sk): shows whether a copy was a reflink/CoW or real bytes. */
export async function allocatedBytes(dir: string): Promise<number> {
  const { stdout } = await execa('du', ['-sk', dir]);
  return Number.parseInt(stdout.split(/\s/)[0]!, 10) * 1024;
}
