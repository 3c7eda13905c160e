/**
 * Way (b) to the branch point (issue 19): fork a file checkpoint taken once. Per backend the
 * checkpoint kind's mechanism (executors/checkpoint/: a frozen overlay upper on staged, a copy on
 * host, CRIU export/import on podman and docker) runs a parent over the trajectory's baseline
 * (plus the state program in `.sandbench/`), which writes the prefix's ground-truth effects and is
 * checkpointed — once per (backend, trajectory), outside timing, on the first fork trial. Each fork
 * trial restores one child from that checkpoint (timed: restore call → the child's state program
 * answers), asks the child for its workspace digest and removes it. Everything is discarded at
 * teardown.
 */
import { copyFileSync, cpSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial } from '../../../../executors/checkpoint/mechanism.ts';
import { createCheckpointMechanism } from '../../../../executors/checkpoint/registry.ts';
import type { BackendName, RunContext } from '../../../../harness/contracts/executor.ts';
import { runScratchDir } from '../../../../harness/state-dir.ts';
import { SCRIPT_IN_WORKSPACE, STATE_SCRIPT, stateProgram } from '../../../checkpoint/state-program.ts';
import type { PrefixInput } from '../replay-inputs.ts';

interface Parent {
  trial: MechanismTrial;
  image: CheckpointImage;
  checkpointMs: number;
  children: number;
}

export interface ForkBackend {
  mechanism: CheckpointMechanism | null;
  unavailable: string | null;
  parents: Map<string, Promise<Parent>>;
}

export interface ForkResult {
  branchPointMs: number;
  restoreCmdMs: number;
  digest: string;
  facts: Record<string, unknown>;
}

const now = () => process.hrtime.bigint();
const msSince = (start: bigint) => Number(now() - start) / 1e6;

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Once per run and backend, outside timing: probe and prepare the backend's checkpoint mechanism. */
export async function prepareForkBackend(run: RunContext, backend: string): Promise<ForkBackend> {
  const mechanism = createCheckpointMechanism(backend as BackendName, null);
  if (!mechanism) return { mechanism: null, unavailable: `no checkpoint mechanism for backend ${backend}`, parents: new Map() };
  const probe = await mechanism.probe().catch((error: unknown) => ({ available: false, reason: `probe crashed: ${error}`, fix: undefined }));
  if (!probe.available) return { mechanism, unavailable: `${probe.reason}${probe.fix ? ` (fix: ${probe.fix})` : ''}`, parents: new Map() };
  try {
    await mechanism.prepare(run);
  } catch (error) {
    return { mechanism, unavailable: `prepare failed: ${error instanceof Error ? error.message : String(error)}`, parents: new Map() };
  }
  return { mechanism, unavailable: null, parents: new Map() };
}

/** The parent's baseline: the trajectory's baseline plus the state program. */
function parentBaseline(dir: string, input: PrefixInput): string {
  const baseline = join(dir, 'baseline');
  cpSync(input.entry.workspace, baseline, { recursive: true });
  mkdirSync(dirname(join(baseline, SCRIPT_IN_WORKSPACE)), { recursive: true });
  copyFileSync(STATE_SCRIPT, join(baseline, SCRIPT_IN_WORKSPACE));
  return baseline;
}

async function takeCheckpoint(run: RunContext, mechanism: CheckpointMechanism, backend: string, input: PrefixInput, timeoutMs: number): Promise<Parent> {
  const id = `bp-${backend}-${input.entry.agent}-${input.entry.index}`;
  // directly below the run's scratch dir, as the checkpoint kind's trials: a VM mechanism's QMP socket
  // goes beside the trial dir and must stay within the 107-byte unix socket limit
  const dir = join(runScratchDir(run.stateDir, run.runId), id);
  mkdirSync(dir, { recursive: true });
  const trial: MechanismTrial = { run, dir, trialId: id, baseline: parentBaseline(dir, input), program: stateProgram, timeoutMs };
  try {
    const parent = await mechanism.startParent(trial);
    await withTimeout(parent.channel.ready, timeoutMs, `${backend} checkpoint parent`);
    // the parent reaches the branch point by writing the prefix's ground-truth effects
    for (const [path, data] of Object.entries(input.entry.task.effects!.files)) await parent.channel.request({ op: 'write', path, data }, timeoutMs);
    await mechanism.quiesce(parent);
    const start = now();
    const image = await mechanism.checkpoint(trial, parent);
    return { trial, image, checkpointMs: msSince(start), children: 0 };
  } catch (error) {
    // a half-made checkpoint (its parent, its layers) is removed at once, not left for teardown
    await mechanism.discard(trial).catch(() => undefined);
    throw error;
  }
}

/** One fork: restore a child from the (backend, trajectory) checkpoint, timed to its first answer; its digest; remove it. */
export async function forkOnce(run: RunContext, fork: ForkBackend, backend: string, input: PrefixInput, named: readonly string[], timeoutMs: number): Promise<ForkResult> {
  const mechanism = fork.mechanism!;
  const key = `${input.entry.agent}/${input.entry.index}`;
  let pending = fork.parents.get(key);
  if (!pending) {
    pending = takeCheckpoint(run, mechanism, backend, input, timeoutMs);
    fork.parents.set(key, pending);
  }
  const parent = await pending;
  const index = parent.children++;
  const start = now();
  const child = await mechanism.restore(parent.trial, parent.image, index);
  try {
    const restoreCmdMs = msSince(start);
    await withTimeout(child.channel.ready, timeoutMs, `${backend} child ${index}`);
    const branchPointMs = msSince(child.startedNs ?? start);
    const answer = await child.channel.request({ op: 'files', paths: named }, timeoutMs);
    return {
      branchPointMs,
      restoreCmdMs,
      digest: String(answer.tree),
      facts: { preserves: mechanism.preserves, checkpoint_ms: parent.checkpointMs, checkpoint_disk_bytes: parent.image.diskBytes, checkpoint_memory_bytes: parent.image.memoryBytes, fork_child: index, child_facts: child.facts },
    };
  } finally {
    await mechanism.destroy(parent.trial, child).catch(() => undefined);
  }
}

/** Teardown: every parent's checkpoint and the mechanism itself. */
export async function discardFork(fork: ForkBackend): Promise<string[]> {
  const errors: string[] = [];
  for (const pending of fork.parents.values()) {
    const parent = await pending.catch(() => null);
    if (parent) await fork.mechanism!.discard(parent.trial).catch((error: unknown) => errors.push(String(error)));
  }
  fork.parents.clear();
  await fork.mechanism?.teardown().catch((error: unknown) => errors.push(String(error)));
  return errors;
}
