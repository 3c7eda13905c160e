/**
 * One rollout attempt through the execution contract: stage a fresh workspace from the task's
 * baseline → start the sandbox and the agent against the model service → wait for exit → collect
 * the native trajectory and the candidate files (diff vs baseline) → score them in a FRESH scoring
 * sandbox on the run's one scoring backend (never the agent's sandbox, never the baseline) →
 * retain or drop per policy → remove every per-attempt resource. Host-clock stamps between the steps
 * make the phases sum to the wall; the model's share of the agent time is filled in afterwards from
 * the model journal (rollout-phases.ts). Never throws for a failure of the rollout: a failure is a
 * category on the result.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BudgetPlacement, Executor, ExitInfo, OutputLine, RunContext, RunningTrial, TaskCommand, TrialContext } from '../../harness/contracts/executor.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';
import { detectCgroupLayout, type CgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import type { AttemptCgroup } from '../../harness/controls/attempt-cgroup.ts';
import { cgroupPeakMemory, processTreePssMethod, type MemoryMethod, type SandboxMemory } from '../../harness/controls/memory-method.ts';
import { exitSignal } from '../agent/agent-judge.ts';
import { removeTree } from '../../executors/workspace-diff.ts';
import { loopTurns } from '../../harness/schedule/index.ts';
import { startSandboxPss, type SandboxPssProbe } from './sandbox-pss.ts';
import { BUILTIN_TRAJECTORY_FILE, readTrajectory, trajectorySource } from './native-trajectory.ts';
import { extractCandidate, retainCandidate, storeObject, type ExtractedCandidate } from './candidate-store.ts';
import { scoreCandidate } from './score-candidate.ts';
import { rewardKey, type RewardCache } from './reward-cache.ts';
import type { RolloutArm } from './rollout-arms.ts';
import type { RetainPolicy } from './rollout-spec.ts';
import { BUILTIN_AGENT_EXIT, type AttemptPath, type RolloutTask, type TaskScore } from './task-contract.ts';

export const TRAJECTORY_FILE = BUILTIN_TRAJECTORY_FILE;

export interface AttemptInput {
  run: RunContext;
  bundleDir: string;
  trialId: string;
  /** URL-safe attempt id (the model route's /a/<id> and the store manifest's key). */
  attemptId: string;
  task: RolloutTask;
  path: AttemptPath;
  arm: RolloutArm;
  backend: string;
  executor: Executor;
  scoringExecutor: Executor;
  /** Per-attempt host scratch (agent trial dir, scoring workspace); removed at the end. */
  scratchDir: string;
  /** How the scratch is removed: the cell's batches (scratch-reaper.ts); absent = one `rm -rf` now. */
  discardScratch?: (dir: string) => Promise<void>;
  budget: BudgetPlacement | null;
  /** The agent sandbox's own cgroup (budget is its placement): its peak, read at the sandbox's exit, is the attempt's memory. */
  memoryCgroup: AttemptCgroup | null;
  /** Why there is no memoryCgroup (recorded as the memory figure's reason). */
  memoryCgroupError?: string;
  /** The in-sandbox command (entry script + mounts + service) for this attempt. */
  command: TaskCommand;
  timeoutMs: number;
  scoringTimeoutMs: number;
  /** Guest RAM for VM sandboxes (null for the others: the budget is the memory control). */
  vmMemoryMiB: number | null;
  cpus: string | null;
  retain: RetainPolicy;
  /** Per-process PSS sampling of the sandbox (detail only: the memory figure is the cgroup's); null = off. */
  pssIntervalMs: number | null;
  /** Reward dedup (reward-cache.ts): an identical candidate's cached score instead of a scoring sandbox; absent = score every candidate. */
  rewardCache?: RewardCache | null;
}

export interface AttemptStamps {
  start: bigint;
  staged: bigint | null;
  launched: bigint | null;
  exit: bigint | null;
  scored: bigint | null;
  end: bigint;
}

export interface AttemptResult {
  outcome: 'ok' | 'failed';
  category: FailureCategory | null;
  notes: string[];
  stamps: AttemptStamps;
  exit: ExitInfo | null;
  score: TaskScore | null;
  candidate: { digest: string; bytes: number; files: number; retained: boolean; new_bytes: number } | null;
  /** The stored native trajectory (built-in agent or the CLI's own), its replay format and whether it parsed. */
  trajectory: { sha256: string; bytes: number; format: string; origin: string; messages: number | null; parsed: boolean } | null;
  /** The agent sandbox's memory from its own cgroup, with its method (null when it never launched). */
  memory: SandboxMemory | null;
  pssPeakKiB: number | null;
  pssSamples: number;
  /** The launched tree's and the container's own parts of the peak, and which processes the figure covers. */
  pss?: { launchedPeakKiB: number | null; containerPeakKiB: number | null; scope: string; method: MemoryMethod; samplerCpuMs: number; reads: number; reuses: number };
  scoring: { exit_code: number | null; ms: number; stdout_tail: string } | null;
  facts: Record<string, unknown>;
}

const now = () => process.hrtime.bigint();
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function stderrTail(lines: readonly OutputLine[], count = 4): string[] {
  return lines.filter((line) => line.stream === 'stderr' && line.text.trim()).slice(-count).map((line) => line.text.slice(0, 300));
}

/** Keep the candidate? `rewarded`: reward 1 only; `failed`: unscored or reward 0 (for debugging substrates). */
export function shouldRetain(policy: RetainPolicy, score: TaskScore | null): boolean {
  if (policy === 'all') return true;
  if (policy === 'none') return false;
  if (policy === 'rewarded') return score !== null && score.reward === 1;
  return score === null || score.reward !== 1;
}

/** The agent's exit → a failure category, or null when the rollout completed (then it is scored). */
export function agentExitCategory(exit: ExitInfo, builtin: boolean, killedByHarness: boolean): { category: FailureCategory; note: string } | null {
  if (exit.timedOut) return { category: 'timeout', note: 'the rollout hit the trial timeout: stopped' };
  if (exit.infraFailure) return { category: exit.infraFailure.category, note: exit.infraFailure.reason };
  if (exit.exitCode === 0) return null;
  const signal = exitSignal(exit);
  if (signal && !killedByHarness) return { category: 'killed_externally', note: `the sandbox died of ${signal} that the harness did not send (exit ${exit.exitCode ?? 'none'})` };
  if (builtin && exit.exitCode === BUILTIN_AGENT_EXIT.modelError) return { category: 'upstream_failed', note: 'the built-in agent reported a model-service error (exit 3)' };
  if (builtin && exit.exitCode === BUILTIN_AGENT_EXIT.maxTurns) return { category: 'task_failed', note: 'the built-in agent reached max turns without a final reply' };
  return { category: 'task_failed', note: `the agent exited ${exit.exitCode ?? signal ?? 'without a code'}` };
}

function trialContext(input: AttemptInput, trialId: string, trialDir: string, baseline: string, timeoutMs: number): TrialContext {
  mkdirSync(trialDir, { recursive: true });
  return {
    run: input.run,
    trialId,
    baselineWorkspace: baseline,
    trialDir,
    timeoutMs,
    controls: { cpus: input.cpus, memoryMiB: input.vmMemoryMiB, ...(input.arm.cpuModel ? { cpuModel: input.arm.cpuModel } : {}) },
    budget: input.budget,
  };
}

let layout: CgroupLayout | null = null;

/** What the PSS sampler covers: the launched tree, plus the attempt's processes outside it (a container's), found in its budget by its model route. */
function pssProbe(input: AttemptInput, running: RunningTrial): SandboxPssProbe {
  const route = input.command.env.SANDBENCH_MODEL_ROUTE;
  let budgetDir: string | null = null;
  if (input.budget) {
    layout ??= detectCgroupLayout();
    budgetDir = `${layout.version === 1 ? layout.mounts.memory : layout.mount}${input.budget.cgroupParent}`;
  }
  return { launched: () => running.rootPids(), marker: route ? `SANDBENCH_MODEL_ROUTE=${route}` : null, budgetDir };
}

export interface AttemptHooks {
  /** Register what stops this attempt's sandboxes (harness interrupt). */
  onKill(listener: () => void): void;
  /** Test hook (fault injection): the agent's sandbox right after launch. */
  onLaunched?(running: RunningTrial): void;
}

export async function runAttempt(input: AttemptInput, kill: AttemptHooks): Promise<AttemptResult> {
  const stamps: AttemptStamps = { start: now(), staged: null, launched: null, exit: null, scored: null, end: 0n };
  const notes: string[] = [];
  const facts: Record<string, unknown> = {};
  const result = (partial: Partial<AttemptResult>): AttemptResult => ({
    outcome: 'failed', category: 'harness_error', notes, stamps, exit: null, score: null, candidate: null, trajectory: null, memory: null,
    pssPeakKiB: null, pssSamples: 0, scoring: null, facts, ...partial,
  });
  const agentDir = join(input.scratchDir, 'agent');
  const agentTrial = trialContext(input, input.trialId, agentDir, input.task.repoDir, input.timeoutMs);
  let scoringTrial: TrialContext | null = null;
  let outcome: AttemptResult;
  try {
    outcome = await attemptBody();
  } catch (error) {
    notes.push(`harness error: ${errorText(error)}`);
    outcome = result({});
  } finally {
    await input.executor.finishTrial(agentTrial).catch((error) => notes.push(`finishTrial (agent): ${errorText(error)}`));
    if (scoringTrial) await input.scoringExecutor.finishTrial(scoringTrial).catch((error) => notes.push(`finishTrial (scoring): ${errorText(error)}`));
    // rm -rf through the launcher: neither blocks the other workers' event-loop turns nor walks the tree in the harness
    await (input.discardScratch ?? removeTree)(input.scratchDir).catch((error) => notes.push(`scratch removal: ${errorText(error)}`));
    stamps.end = now();
  }
  return outcome;

  async function attemptBody(): Promise<AttemptResult> {
    let binding;
    try {
      binding = await input.executor.stageWorkspace(agentTrial);
    } catch (error) {
      notes.push(`workspace staging failed: ${errorText(error)}`);
      return result({ category: 'setup_failed' });
    }
    stamps.staged = now();
    let running: RunningTrial;
    try {
      running = await input.executor.launch(agentTrial, input.command);
    } catch (error) {
      notes.push(`launch failed: ${errorText(error)}`);
      return result({ category: 'setup_failed' });
    }
    stamps.launched = running.tSpawnNs;
    kill.onLaunched?.(running);
    let killedByHarness = false;
    kill.onKill(() => {
      killedByHarness = true;
      void running.kill('harness stopped the rollout');
    });
    const pss = input.pssIntervalMs === null ? null : startSandboxPss(pssProbe(input, running), input.pssIntervalMs);
    const exit = await running.exit;
    // Sandboxes that started together exit together: what follows (cgroup files, collect, parse,
    // hashing) takes turns with the loop's other work instead of running a thousand back to back.
    await loopTurns.take();
    // The kernel's peak, read once the sandbox is gone (before scoring, which shares the cgroup): never polled, so no attempt is too short.
    const memory = cgroupPeakMemory(input.executor.traits, input.memoryCgroup?.peak() ?? null, input.memoryCgroupError);
    const sampled = pss?.stop() ?? null;
    stamps.exit = exit.tExitNs;
    const base = {
      exit,
      memory,
      pssPeakKiB: sampled?.peakKiB ?? null,
      pssSamples: sampled?.samples ?? 0,
      ...(sampled ? { pss: { launchedPeakKiB: sampled.launchedPeakKiB, containerPeakKiB: sampled.detachedPeakKiB, scope: sampled.scope, method: processTreePssMethod(input.executor.traits), samplerCpuMs: sampled.cpuMs, reads: sampled.reads, reuses: sampled.reuses } } : {}),
    };
    facts.agent_stderr_tail = stderrTail(running.lines);
    const agentFailure = agentExitCategory(exit, input.arm.cli === null, killedByHarness);
    // A sandbox that died abnormally may leave members of its tree (the agent under a killed shell): stop them.
    if (agentFailure && !killedByHarness) await running.kill('rollout over: stray processes of a failed sandbox').catch(() => undefined);

    let collected;
    try {
      collected = await input.executor.collect(agentTrial, binding);
    } catch (error) {
      notes.push(`collect failed: ${errorText(error)}`);
      return result({ ...base, category: agentFailure?.category ?? 'recording_failed' });
    }
    facts.collect_facts = collected.facts;
    // The native trajectory is kept for every attempt that wrote one (it is the sample's record), in the same
    // store, and must parse with sandbench's own parser for its format.
    const checked = await readTrajectory(collected, trajectorySource(input.arm), input.task.prompt);
    const stored = checked.content ? storeObject(input.bundleDir, checked.content) : null;
    const trajectory = stored ? { sha256: stored.sha256, bytes: stored.bytes, format: checked.format, origin: checked.origin, messages: checked.messages, parsed: checked.problem === null } : null;
    const candidate = await extractCandidate(collected, input.arm.fault === 'drop-last-write');
    const withCandidate = { ...base, trajectory };
    if (agentFailure) {
      notes.push(agentFailure.note, ...stderrTail(running.lines).map((line) => `stderr: ${line}`));
      if (checked.problem) notes.push(`trajectory: ${checked.problem}`);
      const kept = keep(candidate, null, agentFailure.category);
      return result({ ...withCandidate, category: agentFailure.category, candidate: kept });
    }
    // A completed rollout without a trajectory that parses lost its record: infrastructure, not scored.
    if (checked.problem) {
      notes.push(`recording: ${checked.problem}`);
      return result({ ...withCandidate, category: 'recording_failed', candidate: keep(candidate, null, 'recording_failed') });
    }

    // Scoring: a fresh sandbox on the scoring backend over a host dir the evaluator builds (baseline + candidate + its tests).
    const scoreFresh = () => scoreCandidate({
      evaluator: input.task.evaluator,
      candidate,
      scoringExecutor: input.scoringExecutor,
      scratchDir: input.scratchDir,
      trialFor: (trialDir, workspace) => trialContext({ ...input, arm: { ...input.arm, cpuModel: null } }, `${input.trialId}-score`, trialDir, workspace, input.scoringTimeoutMs),
      onKill: (listener) => kill.onKill(listener),
    });
    const key = rewardKey({ taskId: input.task.id, baseCommit: input.task.baseCommit, evaluatorVersion: input.task.evaluator.version, candidateDigest: candidate.digest });
    const deduped = input.rewardCache ? await input.rewardCache.score(key, input.attemptId, scoreFresh) : null;
    if (deduped) facts.reward_cache = deduped.lookup;
    const scored = deduped?.result ?? (await scoreFresh());
    scoringTrial = scored.trial;
    if (scored.parsedNs !== null) stamps.scored = scored.parsedNs;
    const scoringFacts = scored.scoring ?? undefined;
    if (scored.failure) {
      notes.push(scored.failure.note);
      const label = scored.failure.stage === 'sandbox' ? 'scoring' : scored.failure.category;
      return result({ ...withCandidate, category: scored.failure.category, ...(scoringFacts ? { scoring: scoringFacts } : {}), candidate: keep(candidate, null, label) });
    }
    const score = scored.score!;
    return result({ ...withCandidate, outcome: 'ok', category: null, score, scoring: scoringFacts ?? null, candidate: keep(candidate, score, null) });
  }

  function keep(candidate: ExtractedCandidate, score: TaskScore | null, failure: string | null): AttemptResult['candidate'] {
    const retained = shouldRetain(input.retain, score);
    const stored = retained ? retainCandidate(input.bundleDir, input.attemptId, candidate, { task_id: input.task.id, reward: score?.reward ?? null, failure }) : null;
    return { digest: candidate.digest, bytes: candidate.bytes, files: candidate.files.length, retained, new_bytes: stored?.newBytes ?? 0 };
  }
}
