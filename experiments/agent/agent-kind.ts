/**
 * The `agent` kind: a real agent CLI inside a sandbox, against sandbench's deterministic model
 * service, doing a scripted tool loop (write the candidate file with the shell tool, finish).
 * Arms are backend × agent CLI (agent-arms.ts). Per run: the agent layers (cached, built from the
 * registry), one model service on a Unix socket in the run's scratch directory with its traffic
 * journal in the bundle, and a support directory (entry script + forwarder). Per trial: an empty
 * workspace, one launch with the layer and support mounted read-only and the socket as the only
 * reachable destination, an init deadline on the first model request, then the judge
 * (agent-judge.ts) on exit, journal entries, candidate file.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SANDBOX_MOUNT_ROOT, type TaskCommand, type TrialContext } from '../../harness/contracts/executor.ts';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { UserError } from '../../harness/errors.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { buildPlan, specArms, type PlannedTrial } from '../../harness/plan/plan.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { readSection } from '../../harness/spec/kind-spec.ts';

import { PROJECT_ROOT, runScratchDir } from '../../harness/state-dir.ts';
import { MODEL_ENDPOINT_FILES, MODEL_JOURNAL_FILE, loadModelScript, startModelService, type ModelJournalEntry, type ModelScript, type ModelService } from '../../services/model/index.ts';
import { baseRecord, freshTrialDir, trialScratchDir } from '../trial-experiment.ts';
import { parseAgentArm } from './agent-arms.ts';
import { agentKindAnalysis } from './agent-analysis.ts';
import { judgeAgentTrial } from './agent-judge.ts';
import { summarizeTrace } from './connect-trace.ts';
import type { AgentName } from './agents.ts';
import { ensureLayer, type AgentLayer } from './layers.ts';
import { agentPhases } from './agent-phases.ts';
import { keepTrajectory } from './keep-trajectory.ts';
import { agentSpecSection, type AgentSpec } from './agent-spec.ts';

export const ENTRY_SCRIPT = join(PROJECT_ROOT, 'experiments', 'agent', 'run-agent.sh');
/** What run-agent.sh needs beside it in any support mount (the agent kind's, the rollout kind's), with the model endpoint. */
/** codex's offline configuration (sourced by run-agent.sh and the replay kind's codex-resume.sh). */
export const CODEX_CONFIG_SCRIPT = join(PROJECT_ROOT, 'experiments', 'agent', 'codex-config.sh');
/** The OpenHands SDK runner, started by run-agent.sh with the layer's python. */
export const OPENHANDS_RUNNER = join(PROJECT_ROOT, 'experiments', 'agent', 'openhands_runner.py');
export const AGENT_ENTRY_FILES: Readonly<Record<string, string>> = {
  'run-agent.sh': ENTRY_SCRIPT,
  'codex-config.sh': CODEX_CONFIG_SCRIPT,
  'openhands_runner.py': OPENHANDS_RUNNER,
  ...MODEL_ENDPOINT_FILES,
};
/** Inside every sandbox: the agent's layer and the support files (entry script, forwarder). */
export const LAYER_TARGET = `${SANDBOX_MOUNT_ROOT}/agent`;
export const SUPPORT_TARGET = `${SANDBOX_MOUNT_ROOT}/support`;
/** Service name: the socket appears at /run/sandbench/model.sock in namespaces and containers. */
const SERVICE_NAME = 'model';

export type AgentOptions = AgentSpec;

export function agentOptions(spec: Spec): AgentOptions {
  return readSection(spec, agentSpecSection);
}

/** Validate every arm up front, so a bad variant is a spec error naming the arm, not a failed trial. */
export function agentArms(spec: Spec): ReturnType<typeof parseAgentArm>[] {
  return spec.arms.map((arm, index) => parseAgentArm({ backend: arm.backend, variant: arm.variant ?? null }, index));
}

interface RunState {
  service: ModelService;
  script: ModelScript;
  scriptedTurns: number;
  taskId: string;
  layers: Map<AgentName, AgentLayer>;
  supportDir: string;
  supportKey: string;
  baselineDir: string;
}

function resolveScript(options: AgentOptions): { script: ModelScript; turns: number; taskId: string } {
  const path = isAbsolute(options.script) ? options.script : join(PROJECT_ROOT, options.script);
  if (!existsSync(path)) throw new UserError(`agent.script: ${options.script} does not exist (give a model script path relative to the spec file, a shipped one such as data/model-scripts/marker.yaml, or an absolute path)`);
  const script = loadModelScript(path);
  const task = script.tasks[0];
  if (!task) throw new UserError(`agent.script: ${options.script} has no task`);
  return { script, turns: task.turns.length, taskId: task.id };
}

/** The support directory the sandbox sees at SUPPORT_TARGET; its key changes with either file. */
function writeSupport(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256');
  for (const [name, source] of Object.entries(AGENT_ENTRY_FILES)) {
    copyFileSync(source, join(dir, name));
    hash.update(`${name}\0`).update(readFileSync(source));
  }
  chmodSync(join(dir, 'run-agent.sh'), 0o755);
  return `agent-support-${hash.digest('hex').slice(0, 16)}`;
}

/** URL-safe attempt id of a trial (trial ids hold ':' and '@'). */
export function attemptId(trialId: string): string {
  return trialId.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * This trial's journal entries: those naming its attempt, plus unattributed ones (a CLI that drops
 * the URL path, e.g. a side call to the origin) that arrived while it ran — trials are sequential.
 */
function readJournal(path: string, attempt: string, fromNs: bigint, toNs: bigint): ModelJournalEntry[] {
  if (!existsSync(path)) return [];
  const entries: ModelJournalEntry[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const entry = JSON.parse(line) as ModelJournalEntry;
      const arrival = BigInt(entry.t_arrival_ns);
      if (entry.attempt === attempt || (entry.attempt === null && arrival >= fromNs && arrival <= toNs)) entries.push(entry);
    } catch {
      // a torn last line is written by a request still in flight; the next read sees it whole
    }
  }
  return entries;
}

export function createAgentExperiment(): Experiment {
  let state: RunState | null = null;
  return {
    kind: 'agent',
    spec: { section: agentSpecSection },
    analysis: agentKindAnalysis,
    plan: (spec) => {
      agentArms(spec);
      return buildPlan(spec);
    },
    executorArms: (spec) => specArms(spec),
    async prepare(ctx) {
      const options = agentOptions(ctx.spec);
      const arms = agentArms(ctx.spec);
      const { script, turns, taskId } = resolveScript(options);
      const layers = new Map<AgentName, AgentLayer>();
      for (const { agent } of arms) {
        if (!layers.has(agent.name)) layers.set(agent.name, await ensureLayer(ctx.run.stateDir, agent, ctx.run.log));
      }
      const scratch = runScratchDir(ctx.run.stateDir, ctx.run.runId);
      const baselineDir = join(scratch, 'baseline');
      rmSync(baselineDir, { recursive: true, force: true });
      mkdirSync(baselineDir, { recursive: true });
      const supportDir = join(scratch, 'agent-support');
      const supportKey = writeSupport(supportDir);
      const service = await startModelService({
        script,
        socketDir: scratch,
        port: 0,
        slots: options.slots,
        baseMs: options.base_ms,
        perTokenMs: options.per_token_ms,
        journalPath: join(ctx.bundleDir, MODEL_JOURNAL_FILE),
        log: ctx.run.log,
      });
      ctx.run.cleanup.register('process', `model service ${service.socketPath}`, () => service.close());
      state = { service, script, scriptedTurns: turns, taskId, layers, supportDir, supportKey, baselineDir };
    },
    async runTrial(planned, ctx) {
      if (!state) throw new Error('agent kind: runTrial before prepare');
      return runAgentTrial(planned, ctx, state);
    },
    async teardown() {
      if (state) await state.service.close();
      state = null;
    },
  };
}

async function runAgentTrial(planned: PlannedTrial, ctx: ExperimentContext, state: RunState): Promise<TrialRecord> {
  const record = baseRecord(ctx, planned);
  const options = agentOptions(ctx.spec);
  const { agent, cpuModel } = parseAgentArm(planned.arm);
  const layer = state.layers.get(agent.name)!;
  const trialDir = trialScratchDir(ctx, planned.trial_id);
  const scratch = freshTrialDir(ctx, trialDir);
  const executor = ctx.executorFor(planned.arm);
  const trial: TrialContext = {
    run: ctx.run,
    trialId: planned.trial_id,
    baselineWorkspace: state.baselineDir,
    trialDir,
    timeoutMs: ctx.spec.timeout,
    controls: { cpus: ctx.spec.controls.cpus ?? null, memoryMiB: ctx.spec.controls.memory ?? null, cpuModel },
    budget: null,
  };
  const facts: Record<string, unknown> = {
    agent: agent.name,
    agent_version: agent.version,
    agent_reported_version: layer.meta.reported_version,
    protocol: agent.protocol,
    vm_cpu_model: planned.arm.backend.startsWith('qemu-') ? (cpuModel ?? 'qemu64') : null,
    layer_key: layer.contentKey,
    support_key: state.supportKey,
  };
  try {
    const prepareStart = process.hrtime.bigint();
    const binding = await executor.stageWorkspace(trial);
    const prepareMs = Number(process.hrtime.bigint() - prepareStart) / 1e6;
    // The trial names itself in the model URL, so its journal entries are its own, not a time window's.
    const attempt = attemptId(planned.trial_id);
    facts.model_attempt = attempt;
    // Debug pass: a host-side strace follows only a backend whose task processes are plain host children.
    const tracePath = join(trialDir, 'connect-trace.txt');
    const traced = options.debug_trace && executor.traits.hostTraceable;
    if (options.debug_trace) facts.debug_trace = traced ? 'strace' : `unavailable on ${planned.arm.backend} (a host tracer cannot follow into it; isolation is proven by the endpoint conformance check)`;
    const tracer = traced ? ['strace', '-f', '-qq', '-e', 'trace=connect,sendto,sendmsg,sendmmsg', '-o', tracePath] : [];
    const task: TaskCommand = {
      argv: [...tracer, '/bin/sh', `${SUPPORT_TARGET}/run-agent.sh`, agent.name, options.prompt],
      // Without a private /tmp (the host) the CLI's fresh HOME goes into the trial's scratch dir.
      env: {
        SANDBENCH_AGENT_LAYER: LAYER_TARGET,
        SANDBENCH_AGENT_TMP: executor.traits.privateTmp ? '/tmp' : trialDir,
        SANDBENCH_MODEL_ROUTE: `/t/${encodeURIComponent(state.taskId)}/a/${attempt}`,
      },
      stdin: 'none',
      mounts: [
        { source: layer.dir, target: LAYER_TARGET, contentKey: layer.contentKey },
        { source: state.supportDir, target: SUPPORT_TARGET, contentKey: state.supportKey },
      ],
      service: { name: SERVICE_NAME, socketPath: state.service.socketPath, ...(state.service.port ? { tcp: { host: '127.0.0.1', port: state.service.port } } : {}) },
    };
    let running;
    try {
      running = await executor.launch(trial, task);
    } catch (error) {
      return { ...record, outcome: 'failed', failure_category: 'setup_failed', metrics: { prepare_ms: prepareMs }, notes: [`launch failed: ${error instanceof Error ? error.message : error}`], facts };
    }
    const killer = ctx.run.cleanup.register('process', `trial ${planned.trial_id}`, () => running.kill('harness interrupted'));
    // Init deadline: a CLI that has not sent its first model request by then is stopped.
    const requestsBefore = state.service.stats().requests;
    let initDeadlineHit = false;
    const deadline = setTimeout(() => {
      if (state.service.stats().requests === requestsBefore) {
        initDeadlineHit = true;
        void running.kill('init deadline');
      }
    }, options.init_deadline);
    const exit = await running.exit;
    clearTimeout(deadline);
    ctx.run.cleanup.forget(killer);
    // The journal line of the last request is written when its reply ends; let the loop flush it.
    await sleep(50);
    const entries = readJournal(state.service.journalPath, attempt, running.tSpawnNs, exit.tExitNs);
    const candidates = await executor.collect(trial, binding);
    const candidate = await candidates.read(options.candidate_file);
    const verdict = judgeAgentTrial({
      tSpawnNs: running.tSpawnNs,
      exit,
      lines: running.lines,
      entries,
      scriptedTurns: state.scriptedTurns,
      candidate,
      expectedCandidate: options.candidate_content,
      initDeadlineHit,
      initDeadlineMs: options.init_deadline,
    });
    const phases = agentPhases(running.lines, running.tSpawnNs);
    Object.assign(verdict.metrics, phases.metrics);
    if (Object.keys(phases.details).length > 0) facts.agent_phase_details = phases.details;
    if (agent.agentKindTrajectory) Object.assign(facts, await keepTrajectory(ctx.bundleDir, attempt, agent.agentKindTrajectory, candidates));
    if (traced) {
      const trace = summarizeTrace(existsSync(tracePath) ? readFileSync(tracePath, 'utf8') : '', [`127.0.0.1:${state.service.port}`, state.service.socketPath]);
      verdict.metrics.non_model_connects = trace.nonModel.length;
      verdict.metrics.dns_queries = trace.dns;
      facts.non_model_connects = trace.nonModel.map((attempt) => `${attempt.syscall} ${attempt.destination} = ${attempt.result}`);
      facts.timing_inflated_by_trace = true;
    }
    const firstRequest = verdict.metrics.first_request_ms ?? null;
    return {
      ...record,
      outcome: verdict.outcome,
      failure_category: verdict.category,
      exit_code: exit.exitCode,
      t_spawn_ns: running.tSpawnNs.toString(),
      ready_ms: firstRequest,
      result_ms: verdict.metrics.tool_result_ms ?? null,
      completion_ms: verdict.metrics.completion_ms ?? null,
      metrics: { ...verdict.metrics, prepare_ms: prepareMs },
      validity: verdict.validity,
      notes: verdict.notes,
      facts: { ...candidates.facts, ...facts, ...verdict.facts, arm_label: armLabel(planned.arm), candidate_files: candidates.changed },
    };
  } catch (error) {
    return { ...record, outcome: 'failed', failure_category: 'harness_error', notes: [`harness error: ${error instanceof Error ? error.message : String(error)}`], facts };
  } finally {
    await executor.finishTrial(trial).catch(() => undefined);
    await ctx.run.cleanup.release(scratch);
  }
}

export const agentExperiment = createAgentExperiment();
