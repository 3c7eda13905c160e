/**
 * The replay kind in `mode: replay-only` (issue 19). Arms are backend × agent for sandbench's
 * replayer (one per spec arm: host, staged, podman, docker, qemu-microvm) plus `pvisor-replay:<agent>`
 * where pvisor-replay is installed and the spec names the pinned agent executable it needs. Each
 * block is one (repetition, trajectory) in which every arm replays that trajectory once, in a seeded
 * shuffled order (randomized complete blocks, as prepare-only). No warmups.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runScratchDir } from '../../../harness/state-dir.ts';
import type { ExperimentContext } from '../../../harness/contracts/experiment-kind.ts';
import type { TaskCommand, TrialContext } from '../../../harness/contracts/executor.ts';
import { UserError } from '../../../harness/errors.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../../harness/journal/trial-record.ts';
import type { Plan, PlannedTrial } from '../../../harness/plan/plan.ts';
import type { Spec } from '../../../harness/spec/schema.ts';
import { baseRecord, freshTrialDir, trialScratchDir } from '../../trial-experiment.ts';
import { isReplayAgent } from '../agents.ts';
import { INSTALL_PINNED_AGENTS } from '../pinned-entrypoints.ts';
import { ensureFixtures, fixtureKey, sha256File } from '../replay-fixtures.ts';
import { buildReplayBlocks, replaySection } from '../replay-plan.ts';
import { pvisorReplayStatus } from '../subjects.ts';
import { runPvisorReplayOnly } from './pvisor-replay-only.ts';
import { buildReplayInputs, type ReplayInputs } from './replay-inputs.ts';
import { runReplayOnly } from './replay-only-trial.ts';
import { dropContinueReward, prepareContinueReward, withReward } from './continue-reward.ts';
import { continuationJudge, continuationScript, continueTaskId } from './continuation.ts';
import { MODEL_JOURNAL_FILE, startModelService, type ModelService } from '../../../services/model/index.ts';
import { ensureLayer } from '../../agent/layers.ts';
import { buildResumeSupport, cliContinuationJudge, resumeTask, REQUEST_BODIES_FILE, type ResumeSupport } from './cli-resume/cli-continuation.ts';
import { RESUME_CLIS } from './cli-resume/resume-clis.ts';

export const PVISOR_SUBJECT = 'pvisor-replay';

/** The pinned agent executable pvisor-replay needs for `agent`: made absolute when the spec was resolved (replay/pinned-entrypoints.ts). */
export function pvisorEntrypoint(spec: Spec, agent: string): string | undefined {
  return replaySection(spec).pvisor_agent_entrypoints[agent];
}

/** pvisor-replay arms and, for each agent left out, why. */
export function pvisorAgents(spec: Spec): { agents: string[]; skipped: { agent: string; reason: string }[] } {
  const replay = replaySection(spec);
  if (!replay.subjects.includes('pvisor-replay')) return { agents: [], skipped: [] };
  if (replay.mode === 'continue') {
    // its live continuation drives the pinned agent CLI itself; not wired to the model service here
    return { agents: [], skipped: replay.agents.map((agent) => ({ agent, reason: 'mode continue: pvisor-replay live continuation (the pinned agent CLI against the model service) is not wired in this build' })) };
  }
  const status = pvisorReplayStatus();
  const skipped: { agent: string; reason: string }[] = [];
  const agents: string[] = [];
  for (const agent of replay.agents) {
    const entrypoint = pvisorEntrypoint(spec, agent);
    if (!status.available) skipped.push({ agent, reason: status.reason ?? 'pvisor-replay unavailable' });
    else if (!entrypoint) skipped.push({ agent, reason: `pvisor-replay --replay-only needs the pinned ${agent} executable (--agent-entrypoint); replay.pvisor_agent_entrypoints names none for ${agent}` });
    else if (!existsSync(entrypoint)) skipped.push({ agent, reason: `replay.pvisor_agent_entrypoints.${agent}: ${entrypoint} does not exist (${INSTALL_PINNED_AGENTS} installs the pinned releases)` });
    else agents.push(agent);
  }
  return { agents, skipped };
}

export function replayOnlyArms(spec: Spec): ArmRef[] {
  const replay = replaySection(spec);
  const backends = replay.subjects.includes('sandbench') ? spec.arms : [];
  for (const arm of backends) {
    if (arm.variant) throw new UserError(`arms: replay-only arms are backends without variants (the variant is the agent); drop variant "${arm.variant}" of ${arm.backend}`);
  }
  return [...backends.flatMap((arm) => replay.agents.map((agent) => ({ backend: arm.backend, variant: agent }))), ...pvisorAgents(spec).agents.map((agent) => ({ backend: PVISOR_SUBJECT, variant: agent }))];
}

export function buildReplayOnlyPlan(spec: Spec): Plan {
  return buildReplayBlocks(spec, replayOnlyArms(spec));
}

const inputsCache = new Map<string, Promise<ReplayInputs>>();
/** Mode continue: the run's model service (one for every trial; traffic split by attempt). */
const services = new Map<string, ModelService>();
/** Mode continue with `continue_with: codex | claude`: the run's CLI layer, seeder and session templates. */
const cliSupport = new Map<string, ResumeSupport>();

async function inputsFor(ctx: ExperimentContext): Promise<ReplayInputs> {
  let pending = inputsCache.get(ctx.run.runId);
  if (!pending) {
    const continuing = replaySection(ctx.spec).mode === 'continue';
    pending = ensureFixtures(ctx).then((fixtures) => buildReplayInputs(fixtures.scratchDir, fixtures.entries.values(), continuing));
    inputsCache.set(ctx.run.runId, pending);
    pending.catch(() => inputsCache.delete(ctx.run.runId));
  }
  return pending;
}

export async function prepareReplayOnly(ctx: ExperimentContext): Promise<void> {
  const inputs = await inputsFor(ctx);
  await prepareContinueReward(ctx);
  mkdirSync(join(ctx.bundleDir, 'replay'), { recursive: true });
  const continueWith = replaySection(ctx.spec).continue_with;
  const viaCli = replaySection(ctx.spec).mode === 'continue' && continueWith !== 'builtin-agent';
  if (viaCli && !cliSupport.has(ctx.run.runId)) {
    const cli = RESUME_CLIS[continueWith as keyof typeof RESUME_CLIS];
    const layer = await ensureLayer(ctx.run.stateDir, cli.agent, ctx.run.log);
    cliSupport.set(ctx.run.runId, buildResumeSupport(join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'cli-resume'), inputs.prefixes.values(), layer, cli));
  }
  if (replaySection(ctx.spec).mode === 'continue' && !services.has(ctx.run.runId)) {
    const socketDir = join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'model');
    mkdirSync(socketDir, { recursive: true });
    // a CLI's continuation is judged from what it sent: keep the request bodies beside the journal
    const bodies = viaCli ? { requestBodiesPath: join(ctx.bundleDir, REQUEST_BODIES_FILE) } : {};
    const service = await startModelService({ script: continuationScript(inputs.prefixes.values()), socketDir, port: 0, slots: 2, journalPath: join(ctx.bundleDir, MODEL_JOURNAL_FILE), ...bodies });
    services.set(ctx.run.runId, service);
    ctx.run.cleanup.register('process', 'replay continue model service', () => service.close());
  }
  const pvisor = pvisorAgents(ctx.spec);
  for (const skip of pvisor.skipped) ctx.run.log(`replay-only: no pvisor-replay arm for ${skip.agent}: ${skip.reason}`);
  const status = pvisorReplayStatus();
  const entrypoints = Object.fromEntries(pvisor.agents.map((agent) => [agent, pvisorEntrypoint(ctx.spec, agent)!]));
  const cli = cliSupport.get(ctx.run.runId);
  const subjects = {
    mode: replaySection(ctx.spec).mode,
    continue_with: replaySection(ctx.spec).mode === 'continue' ? replaySection(ctx.spec).continue_with : null,
    ...(cli ? { cli_resume: { cli: cli.cli.name, layer: cli.layerMount.contentKey, reported_version: cli.layer.meta.reported_version, support: cli.mount.contentKey, bridge: [...cli.templates.values()][0]?.template.bridged_from ?? null } } : {}),
    sandbench: { replayer: 'experiments/replay/reexecute/replay-driver.py', sha256: await sha256File(join(inputs.mount.source, 'replay-driver.py')), mount: inputs.mount.contentKey },
    pvisor_replay: { ...status, agents: pvisor.agents, skipped: pvisor.skipped, entrypoints: Object.fromEntries(await Promise.all(Object.entries(entrypoints).map(async ([a, p]) => [a, { path: p, sha256: await sha256File(p).catch(() => null) }]))) },
  };
  writeFileSync(join(ctx.bundleDir, 'replay', 'subjects.json'), `${JSON.stringify(subjects, null, 2)}\n`);
  // the generator's ground truth, beside the trajectories it describes
  const truth = [...inputs.prefixes.values()].map(({ entry, calls }) => ({ agent: entry.agent, index: entry.index, fresh: calls.map((c) => c.fresh), effects: entry.task.effects }));
  writeFileSync(join(ctx.bundleDir, 'replay', 'ground-truth.json'), `${JSON.stringify(truth, null, 2)}\n`);
}

export async function runReplayOnlyTrial(planned: PlannedTrial, ctx: ExperimentContext): Promise<TrialRecord> {
  const record = baseRecord(ctx, planned);
  const agent = String(planned.params?.agent ?? planned.arm.variant ?? '');
  const index = Number(planned.params?.trajectory);
  const inputs = await inputsFor(ctx);
  const input = inputs.prefixes.get(fixtureKey(agent, index));
  if (!isReplayAgent(agent) || !input) return { ...record, notes: [`no trajectory ${agent}/${index} in this run`] };
  record.facts = { agent, trajectory_index: index, repetition: planned.params?.repetition ?? null, trajectory_file: input.entry.bundlePath, trajectory_sha256: input.entry.sha256, subject: planned.arm.backend === PVISOR_SUBJECT ? PVISOR_SUBJECT : 'sandbench' };
  const trialDir = trialScratchDir(ctx, planned.trial_id);
  if (planned.arm.backend === PVISOR_SUBJECT) {
    const status = pvisorReplayStatus();
    const entrypoint = pvisorEntrypoint(ctx.spec, agent);
    if (!status.command || !entrypoint) return { ...record, failure_category: 'setup_failed', notes: [status.reason ?? `no pinned ${agent} entrypoint`] };
    const scratch = freshTrialDir(ctx, trialDir);
    try {
      return await runPvisorReplayOnly(ctx, record, input, status.command, entrypoint, trialDir);
    } finally {
      await ctx.run.cleanup.release(scratch);
    }
  }
  const executor = ctx.executorFor({ backend: planned.arm.backend, variant: null });
  const scratch = freshTrialDir(ctx, trialDir);
  const trial: TrialContext = {
    run: ctx.run, trialId: planned.trial_id, baselineWorkspace: input.entry.workspace, trialDir, timeoutMs: ctx.spec.timeout,
    controls: { cpus: ctx.spec.controls.cpus ?? null, memoryMiB: ctx.spec.controls.memory ?? null }, budget: null,
  };
  const service = services.get(ctx.run.runId);
  const attempt = planned.trial_id.replace(/[^A-Za-z0-9_.-]/g, '_');
  const cli = cliSupport.get(ctx.run.runId);
  const service_ = service ? { name: 'model', socketPath: service.socketPath, ...(service.port ? { tcp: { host: '127.0.0.1', port: service.port } } : {}) } : undefined;
  const task: TaskCommand = service && cli
    ? resumeTask(cli, input, inputs.mount, `/t/${continueTaskId(input)}/a/${attempt}`, service_)
    : service
    ? {
        argv: ['/bin/sh', `${inputs.mount.target}/continue.sh`, input.callsTarget],
        env: { SANDBENCH_MODEL_ROUTE: `/t/${continueTaskId(input)}/a/${attempt}` },
        stdin: 'none',
        mounts: [inputs.mount],
        service: { name: 'model', socketPath: service.socketPath, ...(service.port ? { tcp: { host: '127.0.0.1', port: service.port } } : {}) },
      }
    : { argv: ['python3', `${inputs.mount.target}/replay-driver.py`, input.callsTarget], env: {}, stdin: 'none', mounts: [inputs.mount] };
  const continuation = service && cli ? cliContinuationJudge(input, cli, service.journalPath, join(ctx.bundleDir, REQUEST_BODIES_FILE), attempt) : service ? continuationJudge(input, service.journalPath, attempt) : undefined;
  try {
    return await runReplayOnly({ planned, ctx, input, task, executor, trial, continuation: withReward(ctx, planned, input, continuation), record: { ...record, facts: { ...record.facts, backend: planned.arm.backend } } });
  } catch (error) {
    return { ...record, failure_category: 'harness_error', notes: [`replay-only ${armLabel(planned.arm)}: ${error instanceof Error ? error.message : String(error)}`] };
  } finally {
    await executor.finishTrial(trial).catch(() => undefined);
    await ctx.run.cleanup.release(scratch);
    rmSync(trialDir, { recursive: true, force: true });
  }
}

export async function dropReplayOnly(ctx: ExperimentContext): Promise<void> {
  inputsCache.delete(ctx.run.runId);
  dropContinueReward(ctx);
  cliSupport.delete(ctx.run.runId);
  const service = services.get(ctx.run.runId);
  services.delete(ctx.run.runId);
  await service?.close();
}
