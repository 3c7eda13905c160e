/**
 * What the two files-only mechanisms (staged, host) share: the parent's state process is stopped
 * at the checkpoint (its files are frozen; its memory is not kept, and the mechanism says so), and
 * every child starts a fresh state process on its own copy-on-write view of the frozen files.
 */
import { execa } from 'execa';
import type { StateProcess } from './state-process.ts';
import type { ParentSandbox, Sandbox } from './mechanism.ts';
import { stopStateProcess } from './state-process.ts';

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
