/**
 * One checkpoint trial on one mechanism: parent → mid-rollout state → checkpoint (timed) → K
 * children restored at once (fan-out, each timed to its first answer) → what survived → each child
 * diverges → isolation checks → memory → everything removed. Returns plain observations; the
 * verdict is checkpoint-judge.ts. Never throws for mechanism failures: they become `infra`.
 */
import { mkdirSync } from 'node:fs';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, Sandbox, StateChannel } from '../../executors/checkpoint/mechanism.ts';
import { treeMemory } from '../../executors/checkpoint/pss.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';
import type { CheckpointObservation, ChildObservation, ParentObservation, ProcessView } from './checkpoint-observation.ts';
import { BASELINE_FILES, divergence, rolloutPlan, sha16, type RolloutPlan } from './state-program.ts';

const now = () => process.hrtime.bigint();
const msSince = (start: bigint) => Number(now() - start) / 1e6;
const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 400);

export interface TrialInput {
  mechanism: CheckpointMechanism;
  trial: MechanismTrial;
  seed: number;
  children: number;
  fileMiB: number;
  /** Per request, and for a child to become ready. */
  requestTimeoutMs: number;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([promise, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms))) ]).finally(() => clearTimeout(timer));
}

async function view(channel: StateChannel, paths: readonly string[], timeoutMs: number): Promise<ProcessView> {
  const state = await channel.request({ op: 'get' }, timeoutMs);
  const files = await channel.request({ op: 'files', paths }, timeoutMs);
  return { counter: Number(state.counter), token: String(state.token), structure: String(state.structure), tree: String(files.tree), files: Number(files.files) };
}

const sha = async (channel: StateChannel, path: string, timeoutMs: number) => {
  const answer = await channel.request({ op: 'sha', path }, timeoutMs);
  return answer.sha === null ? null : String(answer.sha);
};

/** Paths every view reads by name (baseline, edits, delete, large file): listings may hide lower layers. */
export function namedPaths(plan: RolloutPlan): string[] {
  return [...new Set([...Object.keys(BASELINE_FILES), ...plan.edits.map((edit) => edit.path), ...plan.deletes, plan.bigFile.path])].sort();
}

/** The parent's mid-rollout: counter increments, small edits, a delete, the large file. */
async function rollout(channel: StateChannel, seed: number, fileMiB: number, timeoutMs: number): Promise<ParentObservation> {
  const plan = rolloutPlan(seed, fileMiB);
  await channel.request({ op: 'inc', by: plan.counter }, timeoutMs);
  for (const edit of plan.edits) await channel.request(edit, timeoutMs);
  for (const path of plan.deletes) await channel.request({ op: 'delete', path }, timeoutMs);
  await channel.request({ op: 'bigfile', ...plan.bigFile }, Math.max(timeoutMs, 120_000));
  const shas: Record<string, string | null> = {};
  for (const path of [...plan.edits.map((edit) => edit.path), plan.bigFile.path]) shas[path] = await sha(channel, path, timeoutMs);
  const deleted = await channel.request({ op: 'exists', paths: plan.deletes }, timeoutMs);
  return { view: await view(channel, namedPaths(plan), timeoutMs), shas, deletedPresent: String(deleted.exists) };
}

interface LiveChild {
  observation: ChildObservation;
  sandbox: Sandbox | null;
}

async function restoreChild(input: TrialInput, image: CheckpointImage, index: number): Promise<LiveChild> {
  const observation: ChildObservation = { index, error: null, restoreCmdMs: null, restoreMs: null, before: null, ownSha: null, siblingsSeen: null, sharedSha: null, counterAfter: null, memory: null, facts: {} };
  const start = now();
  let sandbox: Sandbox | null = null;
  try {
    sandbox = await input.mechanism.restore(input.trial, image, index);
    observation.restoreCmdMs = msSince(start);
    observation.facts = sandbox.facts;
    await withTimeout(sandbox.channel.ready, input.requestTimeoutMs, `child ${index}`);
    // A mechanism that serializes restores (pVisor's job lock) says when this child's own began.
    observation.restoreMs = msSince(sandbox.startedNs ?? start);
    if (sandbox.startedNs !== undefined) observation.facts = { ...observation.facts, queued_ms: Number(sandbox.startedNs - start) / 1e6 };
  } catch (error) {
    observation.error = message(error);
  }
  return { observation, sandbox };
}

export async function runCheckpointTrial(input: TrialInput): Promise<CheckpointObservation> {
  const { mechanism, trial, seed, children, requestTimeoutMs: timeout } = input;
  const plan = rolloutPlan(seed, input.fileMiB);
  const obs: CheckpointObservation = {
    backend: mechanism.backend,
    variant: mechanism.variant,
    preserves: mechanism.preserves,
    children,
    infra: null,
    parent: null,
    expected: { counter: plan.counter, shas: Object.fromEntries(plan.edits.map((edit) => [edit.path, sha16(edit.data)])), deleted: plan.deletes, bigFile: plan.bigFile.path },
    checkpointMs: null,
    parentPaused: null,
    diskBytes: null,
    memoryBytes: null,
    imageFacts: {},
    fanoutMs: null,
    childObservations: [],
    frozenBefore: null,
    frozenAfter: null,
    baselineBefore: treeDigest(trial.baseline),
    baselineAfter: null,
    divergence: Array.from({ length: children }, (_, child) => {
      const d = divergence(seed, child);
      return { ownSha: sha16(d.ownData), sharedSha: sha16(d.sharedData) };
    }),
    cleanupErrors: [],
  };
  const fail = (category: FailureCategory, reason: string) => {
    obs.infra ??= { category, reason };
  };
  const live: LiveChild[] = [];
  mkdirSync(trial.dir, { recursive: true });
  try {
    let parent;
    try {
      parent = await mechanism.startParent(trial);
      await withTimeout(parent.channel.ready, timeout, 'parent');
      obs.parent = await rollout(parent.channel, seed, input.fileMiB, timeout);
      await mechanism.quiesce(parent);
    } catch (error) {
      fail('setup_failed', `parent: ${message(error)}`);
      return obs;
    }
    let image: CheckpointImage;
    try {
      const start = now();
      image = await mechanism.checkpoint(trial, parent);
      obs.checkpointMs = msSince(start);
      Object.assign(obs, { parentPaused: image.parentPaused, diskBytes: image.diskBytes, memoryBytes: image.memoryBytes, imageFacts: image.facts });
      obs.frozenBefore = await mechanism.frozenDigest(trial, image);
    } catch (error) {
      fail('upstream_failed', `checkpoint: ${message(error)}`);
      return obs;
    }
    // Fan-out: all K restores start together; fan-out time is until the last child answered.
    const fanStart = now();
    live.push(...(await Promise.all(Array.from({ length: children }, (_, index) => restoreChild(input, image, index)))));
    obs.fanoutMs = live.every((child) => child.observation.restoreMs !== null) ? msSince(fanStart) : null;
    obs.childObservations = live.map((child) => child.observation);
    const ready = live.filter((child) => child.observation.error === null && child.sandbox);
    try {
      for (const child of ready) child.observation.before = await view(child.sandbox!.channel, namedPaths(plan), timeout);
      // Diverge: each child writes its own file, rewrites a file the parent edited, and counts once.
      for (const child of ready) {
        const d = divergence(seed, child.observation.index);
        await child.sandbox!.channel.request({ op: 'write', path: d.own, data: d.ownData }, timeout);
        await child.sandbox!.channel.request({ op: 'write', path: d.shared, data: d.sharedData }, timeout);
        await child.sandbox!.channel.request({ op: 'inc' }, timeout);
      }
      for (const child of ready) {
        const channel = child.sandbox!.channel;
        const d = divergence(seed, child.observation.index);
        const siblings = Array.from({ length: children }, (_, j) => j).filter((j) => j !== child.observation.index).map((j) => divergence(seed, j).own);
        child.observation.ownSha = await sha(channel, d.own, timeout);
        child.observation.sharedSha = await sha(channel, d.shared, timeout);
        const seen = siblings.length > 0 ? String((await channel.request({ op: 'exists', paths: siblings }, timeout)).exists) : '';
        child.observation.siblingsSeen = [...seen].filter((c) => c === '1').length;
        child.observation.counterAfter = Number((await channel.request({ op: 'get' }, timeout)).counter);
        child.observation.memory = treeMemory(await child.sandbox!.pids());
      }
      obs.frozenAfter = await mechanism.frozenDigest(trial, image);
    } catch (error) {
      fail('upstream_failed', `children: ${message(error)}`);
    }
    return obs;
  } finally {
    for (const child of live) if (child.sandbox) await mechanism.destroy(trial, child.sandbox).catch((error) => obs.cleanupErrors.push(message(error)));
    await mechanism.discard(trial).catch((error) => obs.cleanupErrors.push(message(error)));
    obs.baselineAfter = treeDigest(trial.baseline);
  }
}

