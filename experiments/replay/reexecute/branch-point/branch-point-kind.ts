/**
 * Mode `branch-point` of the replay kind (issue 19, item 4): the same prefix state reached three ways
 * per backend, as three arms of one interleaved run so their costs compare — `<backend>:replay` (the
 * prefix's calls re-executed in a fresh sandbox, replay-only's trial), `<backend>:fork` (a child
 * restored from a file checkpoint taken once, fork-way.ts) and `<backend>:scratch` (the built-in
 * agent runs the prefix live against the scripted model, scratch-way.ts). Each block is one
 * (repetition, trajectory) in which every arm reaches that trajectory's branch point once, in a
 * seeded shuffled order (the replay kind's one block schedule). Per trial: `branch_point_ms` (from
 * the start of the way's work — staging or the restore call — to the state being there), and the
 * workspace digest, which must equal the ground truth's (baseline + the prefix's effects).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CandidateFiles, TaskCommand, TrialContext } from '../../../../harness/contracts/executor.ts';
import type { ExperimentContext } from '../../../../harness/contracts/experiment-kind.ts';
import { UserError } from '../../../../harness/errors.ts';
import type { ResourceHandle } from '../../../../harness/run/cleanup-registry.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../../../harness/journal/trial-record.ts';
import type { Plan, PlannedTrial } from '../../../../harness/plan/plan.ts';
import type { Spec } from '../../../../harness/spec/schema.ts';
import { runScratchDir } from '../../../../harness/state-dir.ts';
import { MODEL_JOURNAL_FILE, startModelService, type ModelService } from '../../../../services/model/index.ts';
import { baseRecord, freshTrialDir, trialScratchDir } from '../../../trial-experiment.ts';
import { ensureFixtures, fixtureKey } from '../../replay-fixtures.ts';
import { buildReplayBlocks, replaySection } from '../../replay-plan.ts';
import { buildReplayInputs, type PrefixInput, type ReplayInputs } from '../replay-inputs.ts';
import { runReplayOnly } from '../replay-only-trial.ts';
import { discardFork, forkOnce, prepareForkBackend, type ForkBackend } from './fork-way.ts';
import { buildScratchMount, scratchJudge, scratchScript, scratchTaskId } from './scratch-way.ts';
import { collectedDigest, expectedDigest, filesOf, namedPaths } from './state-digest.ts';

export const BRANCH_POINT_WAYS = ['replay', 'fork', 'scratch'] as const;
export type BranchPointWay = (typeof BRANCH_POINT_WAYS)[number];

/** The one trajectory format the replay way parses (the branch point itself does not depend on it). */
function agentOf(spec: Spec): string {
  const agents = replaySection(spec).agents;
  if (agents.length !== 1) throw new UserError(`replay.agents: mode branch-point takes one trajectory format (its replay way parses it; the other two ways do not read it), got ${agents.length}; e.g. agents: [codex]`);
  return agents[0]!;
}

export function branchPointArms(spec: Spec): ArmRef[] {
  for (const arm of spec.arms) {
    if (arm.variant) throw new UserError(`arms: branch-point arms are backends without variants (the variant is the way: ${BRANCH_POINT_WAYS.join(', ')}); drop variant "${arm.variant}" of ${arm.backend}`);
  }
  return spec.arms.flatMap((arm) => BRANCH_POINT_WAYS.map((way) => ({ backend: arm.backend, variant: way })));
}

export function buildBranchPointPlan(spec: Spec): Plan {
  const agent = agentOf(spec);
  const plan = buildReplayBlocks(spec, branchPointArms(spec));
  return { ...plan, trials: plan.trials.map((t) => ({ ...t, params: { ...t.params, agent, way: t.arm.variant! } })) };
}

interface RunState {
  inputs: ReplayInputs;
  scratch: { mount: ReplayInputs['mount']; callsTarget: Map<string, string> };
  service: ModelService;
  forks: Map<string, ForkBackend>;
  /** Per trajectory: its baseline files, the named paths and the ground-truth digest. */
  truth: Map<string, { baseline: Map<string, Buffer>; named: string[]; digest: string }>;
  /** What an interrupted run releases (the service, the checkpoints); teardown releases them itself. */
  handles: ResourceHandle[];
}

const states = new Map<string, Promise<RunState>>();

async function create(ctx: ExperimentContext): Promise<RunState> {
  const fixtures = await ensureFixtures(ctx);
  const inputs = buildReplayInputs(fixtures.scratchDir, fixtures.entries.values(), true);
  const scratch = buildScratchMount(join(fixtures.scratchDir, 'branch-point'), inputs.prefixes.values());
  const socketDir = join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'model');
  mkdirSync(socketDir, { recursive: true });
  const service = await startModelService({ script: scratchScript(inputs.prefixes.values()), socketDir, port: 0, slots: 2, journalPath: join(ctx.bundleDir, MODEL_JOURNAL_FILE) });
  const handles = [ctx.run.cleanup.register('process', 'replay branch-point model service', () => service.close())];
  const forks = new Map<string, ForkBackend>();
  for (const arm of ctx.spec.arms) {
    const fork = await prepareForkBackend(ctx.run, arm.backend);
    if (fork.unavailable) ctx.run.log(`branch-point: no fork way on ${arm.backend}: ${fork.unavailable}`);
    forks.set(arm.backend, fork);
    handles.push(ctx.run.cleanup.register('process', `branch-point checkpoints on ${arm.backend}`, async () => void (await discardFork(fork))));
  }
  const truth = new Map<string, { baseline: Map<string, Buffer>; named: string[]; digest: string }>();
  for (const [key, input] of inputs.prefixes) {
    const baseline = filesOf(input.entry.workspace);
    const effects = input.entry.task.effects!;
    truth.set(key, { baseline, named: namedPaths(baseline, effects), digest: expectedDigest(baseline, effects) });
  }
  // the generator's ground truth and the branch point's digest, beside the trajectories they describe
  const ground = [...inputs.prefixes].map(([key, { entry, calls }]) => ({ agent: entry.agent, index: entry.index, fix_task: entry.task.fix?.taskId ?? null, fresh: calls.map((c) => c.fresh), effects: entry.task.effects, state_digest: truth.get(key)!.digest, named_paths: truth.get(key)!.named }));
  mkdirSync(join(ctx.bundleDir, 'replay'), { recursive: true });
  writeFileSync(join(ctx.bundleDir, 'replay', 'ground-truth.json'), `${JSON.stringify(ground, null, 2)}\n`);
  return { inputs, scratch, service, forks, truth, handles };
}

function stateOf(ctx: ExperimentContext): Promise<RunState> {
  let pending = states.get(ctx.run.runId);
  if (!pending) {
    pending = create(ctx);
    states.set(ctx.run.runId, pending);
    pending.catch(() => states.delete(ctx.run.runId));
  }
  return pending;
}

export async function prepareBranchPoint(ctx: ExperimentContext): Promise<void> {
  await stateOf(ctx);
}

const digestCheck = (digest: string, expected: string) => ({ branch_point_state_matches: digest === expected ? ('pass' as const) : ('fail' as const) });

async function sandboxWay(ctx: ExperimentContext, planned: PlannedTrial, record: TrialRecord, state: RunState, input: PrefixInput, way: 'replay' | 'scratch'): Promise<TrialRecord> {
  const truth = state.truth.get(fixtureKey(input.entry.agent, input.entry.index))!;
  const executor = ctx.executorFor({ backend: planned.arm.backend, variant: null });
  const trialDir = trialScratchDir(ctx, planned.trial_id);
  const scratch = freshTrialDir(ctx, trialDir);
  const trial: TrialContext = {
    run: ctx.run, trialId: planned.trial_id, baselineWorkspace: input.entry.workspace, trialDir, timeoutMs: ctx.spec.timeout,
    controls: { cpus: ctx.spec.controls.cpus ?? null, memoryMiB: ctx.spec.controls.memory ?? null }, budget: null,
  };
  const attempt = planned.trial_id.replace(/[^A-Za-z0-9_.-]/g, '_');
  const scratchTarget = state.scratch.callsTarget.get(fixtureKey(input.entry.agent, input.entry.index))!;
  const service = state.service;
  const task: TaskCommand = way === 'replay'
    ? { argv: ['python3', `${state.inputs.mount.target}/replay-driver.py`, input.callsTarget], env: {}, stdin: 'none', mounts: [state.inputs.mount] }
    : {
        argv: ['/bin/sh', `${state.inputs.mount.target}/continue.sh`, scratchTarget],
        env: { SANDBENCH_MODEL_ROUTE: `/t/${scratchTaskId(input)}/a/${attempt}` },
        stdin: 'none',
        mounts: [state.inputs.mount, state.scratch.mount],
        service: { name: 'model', socketPath: service.socketPath, ...(service.port ? { tcp: { host: '127.0.0.1', port: service.port } } : {}) },
      };
  let digest: string | null = null;
  const observe = async (candidates: CandidateFiles) => {
    digest = await collectedDigest(truth.baseline, candidates, truth.named);
    return { validity: digestCheck(digest, truth.digest), facts: { state_digest: digest, state_digest_expected: truth.digest } };
  };
  try {
    // from scratch: the driver replays nothing (an empty prefix), the agent runs every call live
    const run = way === 'replay'
      ? await runReplayOnly({ planned, ctx, input, task, executor, trial, observe, record })
      : await runReplayOnly({ planned, ctx, input: { ...input, calls: [], callsTarget: scratchTarget }, task, executor, trial, observe, continuation: scratchJudge(input, service.journalPath, attempt), record });
    const metrics = { ...run.metrics };
    const prepare = run.metrics.prepare_ms;
    if (run.outcome === 'ok' && prepare !== undefined) {
      const reach = way === 'replay' ? run.metrics.completion_ms : run.metrics.launch_to_branch_point_ms;
      if (reach !== undefined) metrics.branch_point_ms = prepare + reach;
    }
    return { ...run, metrics, facts: { ...run.facts, mode: 'branch-point', way, backend: planned.arm.backend } };
  } catch (error) {
    return { ...record, failure_category: 'harness_error', notes: [`branch-point ${armLabel(planned.arm)}: ${error instanceof Error ? error.message : String(error)}`] };
  } finally {
    await executor.finishTrial(trial).catch(() => undefined);
    await ctx.run.cleanup.release(scratch);
    rmSync(trialDir, { recursive: true, force: true });
  }
}

async function forkWay(ctx: ExperimentContext, planned: PlannedTrial, record: TrialRecord, state: RunState, input: PrefixInput): Promise<TrialRecord> {
  const fork = state.forks.get(planned.arm.backend);
  const facts = { ...record.facts, mode: 'branch-point', way: 'fork', backend: planned.arm.backend };
  if (!fork || fork.unavailable) return { ...record, outcome: 'failed', failure_category: 'setup_failed', notes: [`unavailable: ${fork?.unavailable ?? 'not prepared'}`], facts: { ...facts, unavailable: fork?.unavailable ?? 'not prepared' } };
  const truth = state.truth.get(fixtureKey(input.entry.agent, input.entry.index))!;
  try {
    const result = await forkOnce(ctx.run, fork, planned.arm.backend, input, truth.named, ctx.spec.timeout);
    const validity = digestCheck(result.digest, truth.digest);
    const ok = validity.branch_point_state_matches === 'pass';
    return {
      ...record,
      outcome: ok ? 'ok' : 'invalid',
      failure_category: ok ? null : 'task_failed',
      completion_ms: result.branchPointMs,
      metrics: { branch_point_ms: result.branchPointMs, restore_cmd_ms: result.restoreCmdMs },
      validity,
      notes: ok ? [] : [`the forked child's workspace digest ${result.digest} is not the branch point's ${truth.digest}`],
      facts: { ...facts, ...result.facts, state_digest: result.digest, state_digest_expected: truth.digest },
    };
  } catch (error) {
    return { ...record, outcome: 'failed', failure_category: 'upstream_failed', notes: [`fork: ${error instanceof Error ? error.message : String(error)}`], facts };
  }
}

export async function runBranchPointTrial(planned: PlannedTrial, ctx: ExperimentContext): Promise<TrialRecord> {
  const record = baseRecord(ctx, planned);
  const state = await stateOf(ctx);
  const agent = String(planned.params?.agent ?? '');
  const index = Number(planned.params?.trajectory);
  const way = String(planned.params?.way ?? planned.arm.variant) as BranchPointWay;
  const input = state.inputs.prefixes.get(fixtureKey(agent, index));
  if (!input || !BRANCH_POINT_WAYS.includes(way)) return { ...record, notes: [`no trajectory ${agent}/${index} or way ${way} in this run`] };
  record.facts = { agent, trajectory_index: index, repetition: planned.params?.repetition ?? null, trajectory_file: input.entry.bundlePath, trajectory_sha256: input.entry.sha256, subject: 'sandbench', fix_task: input.entry.task.fix?.taskId ?? null };
  return way === 'fork' ? forkWay(ctx, planned, record, state, input) : sandboxWay(ctx, planned, record, state, input, way);
}

export async function dropBranchPoint(ctx: ExperimentContext): Promise<void> {
  const pending = states.get(ctx.run.runId);
  states.delete(ctx.run.runId);
  const state = await pending?.catch(() => null);
  if (!state) return;
  for (const fork of state.forks.values()) {
    const errors = await discardFork(fork);
    for (const error of errors) ctx.run.log(`branch-point checkpoint cleanup: ${error}`);
  }
  await state.service.close();
  for (const handle of state.handles) ctx.run.cleanup.forget(handle);
}
