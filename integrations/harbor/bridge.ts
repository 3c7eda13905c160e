/**
 * The sandbench side of the Harbor environment provider (sandbench_harbor.SandbenchEnvironment):
 * one process per Harbor trial, started by the provider as
 *
 *   node --import tsx integrations/harbor/bridge.ts --backend B --task DIR --journal FILE
 *
 * It opens a run of its own on backend B (probe, task image, run lock, cleanup registry, as
 * `sandbench serve run-code` does), builds the trial's workspace from the task's
 * environment/Dockerfile (the same offline subset as the rollout task source:
 * experiments/rollout/tasks/harbor.ts), stages it, and launches one long-lived in-sandbox server
 * (sandbench_harbor/sandbox_server.py) through the executor contract. Requests arrive as JSON lines
 * on stdin (exec, put, get, stop) and are forwarded to that server; each answer goes back as one
 * JSON line on stdout. Every operation is journalled with its host-clock latency and the sandbox's
 * process-tree PSS after it (what Harbor does not record), as are start and teardown.
 */
import { appendFileSync, copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dirname, join, resolve } from 'node:path';
import type { Executor, OutputLine, RunContext, RunningTrial, TrialContext } from '../../harness/contracts/executor.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { newRunId } from '../../harness/run/bundle-dir.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { acquireRunLock } from '../../harness/run/run-lock.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { PROJECT_ROOT, runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { harborBaseline } from '../../experiments/rollout/tasks/harbor.ts';
import { readHarborTaskDir } from '../../experiments/rollout/tasks/harbor-task.ts';
import { treePssKiB } from '../../experiments/rollout/tree-pss.ts';

const SERVER_SOURCE = join(PROJECT_ROOT, 'integrations', 'harbor', 'sandbench_harbor', 'sandbox_server.py');
const SERVER_IN_WORKSPACE = '.sandbench-harbor/server.py';
const MARK = 'SBH ';
/** What `pss_kib` covers: the tree the launch started (for podman/docker that is the client, not the container's processes). */
const PSS_SCOPE = 'launched process tree (smaps_rollup; podman/docker: the client process only)';
/**
 * Debian packages every provider image carries beyond sandbench's defaults and the task's own
 * `RUN apt-get install` list: Harbor's terminus-2 drives a tmux session through exec, and when
 * `tmux -V` fails it installs tmux from the network at agent setup (terminus_2/tmux_session.py:99–200),
 * which no sandbox has.
 */
const AGENT_PACKAGES = ['tmux'];
/** How long the in-sandbox server gets to stop its own children (a tmux server) after stdin closes, before the kill. */
const GRACEFUL_STOP_MS = 3000;
/** Harbor's in-environment directories, mapped into the workspace (its workdir maps to the workspace itself). */
const HARBOR_DIRS: readonly [string, string][] = [
  ['/logs', '.sandbench-harbor/logs'],
  ['/tests', '.sandbench-harbor/tests'],
  ['/solution', '.sandbench-harbor/solution'],
  ['/installed-agent', '.sandbench-harbor/installed-agent'],
];

interface Flags {
  backend: string;
  task: string;
  journal: string;
  timeoutMs: number;
}

function parseFlags(argv: readonly string[]): Flags {
  const value = (name: string) => {
    const index = argv.indexOf(`--${name}`);
    return index >= 0 ? argv[index + 1] : undefined;
  };
  const backend = value('backend');
  const task = value('task');
  if (!backend || !task) throw new Error('usage: bridge.ts --backend B --task DIR [--journal FILE] [--timeout-s N]');
  return { backend, task: resolve(task), journal: resolve(value('journal') ?? 'sandbench-harbor-journal.jsonl'), timeoutMs: Number(value('timeout-s') ?? 3600) * 1000 };
}

/** The task image the provider runs: sandbench's default packages, the task Dockerfile's apt packages, and the agents' (tmux). */
function providerImageSpec(taskPackages: readonly string[]) {
  const defaults = ImageSpecSchema.parse({}).packages;
  return ImageSpecSchema.parse({ packages: [...new Set([...defaults, ...taskPackages, ...AGENT_PACKAGES])] });
}

const msSince = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;
const reply = (message: Record<string, unknown>, then?: () => void) => process.stdout.write(`${JSON.stringify(message)}\n`, then);

async function executorFor(backend: string): Promise<Executor> {
  const { runWiring } = await import('../../cli/wiring.ts');
  const [name, variant = null] = backend.split(':', 2) as [string, string?];
  const executor = (await runWiring()).createExecutor(name, variant);
  if (!executor) throw new Error(`backend ${backend}: no such sandbench backend (sandbench doctor lists them)`);
  return executor;
}

/** Answers from the in-sandbox server, by request id. */
class ServerChannel {
  private readonly waiting = new Map<number, (answer: Record<string, unknown>) => void>();
  private nextId = 1;
  ready: Promise<Record<string, unknown>>;

  constructor(private readonly running: RunningTrial) {
    let markReady!: (answer: Record<string, unknown>) => void;
    this.ready = new Promise((done) => (markReady = done));
    running.onLine((line: OutputLine) => {
      if (line.stream !== 'stdout' || !line.text.startsWith(MARK)) return;
      const answer = JSON.parse(line.text.slice(MARK.length)) as Record<string, unknown>;
      if (answer.ready) markReady(answer);
      else this.waiting.get(answer.id as number)?.(answer);
    });
  }

  request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    return new Promise((done) => {
      this.waiting.set(id, (answer) => {
        this.waiting.delete(id);
        done(answer);
      });
      this.running.writeStdin(`${JSON.stringify({ ...body, id })}\n`);
    });
  }
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  mkdirSync(dirname(flags.journal), { recursive: true });
  const journal = (entry: Record<string, unknown>) => appendFileSync(flags.journal, `${JSON.stringify({ t: new Date().toISOString(), backend: flags.backend, ...entry })}\n`);
  const log = (message: string) => process.stderr.write(`sandbench-harbor: ${message}\n`);
  const startedAt = process.hrtime.bigint();

  const executor = await executorFor(flags.backend);
  const probe = await executor.probe();
  if (!probe.available) throw new Error(`backend ${flags.backend} is unavailable: ${probe.reason ?? 'unknown reason'}${probe.fix ? ` (fix: ${probe.fix})` : ''}`);
  const task = readHarborTaskDir(flags.task);
  const runId = newRunId(`harbor-env-${executor.backend}`);
  const image = await ensureTaskImage(stateDir(), providerImageSpec(task.dockerfile.packages), log);
  const releaseLock = acquireRunLock(stateDir(), runId);
  const cleanup = new CleanupRegistry(runId);
  const root = runScratchDir(stateDir(), runId);
  const run: RunContext = { runId, image, stateDir: stateDir(), cleanup, log, options: { dockerHost: process.env.DOCKER_HOST } };
  const trial: TrialContext = {
    run,
    trialId: runId,
    baselineWorkspace: join(root, 'baseline'),
    trialDir: join(root, 'trial'),
    timeoutMs: flags.timeoutMs,
    controls: { cpus: null, memoryMiB: task.memoryMb },
    budget: null,
  };
  let running: RunningTrial | null = null;
  const release = async (): Promise<string[]> => {
    const failures: string[] = [];
    if (running) await running.kill('harbor trial stopped').catch(() => undefined);
    await executor.finishTrial(trial).catch((error: unknown) => failures.push(`finish: ${String(error)}`));
    await executor.teardown().catch((error: unknown) => failures.push(`teardown: ${String(error)}`));
    for (const failure of await cleanup.releaseAll()) failures.push(`${failure.handle.kind} ${failure.handle.name}: ${failure.error}`);
    rmSync(root, { recursive: true, force: true });
    releaseLock();
    return failures;
  };
  process.once('SIGTERM', () => void release().finally(() => process.exit(143)));

  try {
    await executor.prepare(run);
    const prepared = msSince(startedAt);
    // The Dockerfile's COPY lines and prepare steps (pip, git clone, gcc) build this trial's workspace,
    // inside Harbor's environment_setup: each step's time is journalled (Harbor records only the phase).
    const buildStart = process.hrtime.bigint();
    mkdirSync(trial.trialDir, { recursive: true });
    const prepareSteps = harborBaseline(task, trial.baselineWorkspace).map((step) => ({ dockerfile_line: step.line, command: step.command, ms: step.ms }));
    mkdirSync(join(trial.baselineWorkspace, dirname(SERVER_IN_WORKSPACE)), { recursive: true });
    copyFileSync(SERVER_SOURCE, join(trial.baselineWorkspace, SERVER_IN_WORKSPACE));
    const built = msSince(buildStart);
    const stageStart = process.hrtime.bigint();
    await executor.stageWorkspace(trial);
    const staged = msSince(stageStart);
    const mapping = [...HARBOR_DIRS, [task.workdir, '.']];
    const launchStart = process.hrtime.bigint();
    running = await executor.launch(trial, { argv: ['python3', '-u', '-B', SERVER_IN_WORKSPACE], env: { SBH_MAP: JSON.stringify(mapping), PYTHONDONTWRITEBYTECODE: '1' }, stdin: 'pipe' });
    const channel = new ServerChannel(running);
    const ended = running.exit.then((exit) => ({ ended: exit }));
    const first = await Promise.race([channel.ready.then((ready) => ({ ready })), ended]);
    if ('ended' in first) throw new Error(`the in-sandbox server ended before it was ready (exit ${first.ended.exitCode}; ${running.lines.slice(-3).map((l) => l.text).join(' | ')})`);
    const pss = () => (running ? treePssKiB(running.rootPids()).pssKiB : null);
    journal({ op: 'start', prepare_ms: prepared, workspace_ms: built, prepare_steps: prepareSteps, stage_ms: staged, launch_to_ready_ms: msSince(launchStart), total_ms: msSince(startedAt), pss_kib: pss(), pss_scope: PSS_SCOPE, task: task.dir, run_id: runId, image: image.digest });
    reply({ ok: true, op: 'start', workspace: first.ready.workspace, run_id: runId });

    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) {
      const request = JSON.parse(line) as Record<string, unknown> & { op: string };
      if (request.op === 'stop') break;
      const opStart = process.hrtime.bigint();
      const answer = await Promise.race([channel.request(request), ended]);
      if ('ended' in answer) throw new Error(`the sandbox ended during ${request.op} (exit ${(answer.ended as { exitCode: number | null }).exitCode})`);
      const ms = msSince(opStart);
      journal({ op: request.op, path: request.path ?? null, command: typeof request.command === 'string' ? request.command.slice(0, 200) : null, ms, in_sandbox_ms: answer.in_sandbox_ms, rc: answer.rc ?? null, bytes: typeof request.data === 'string' ? request.data.length : typeof answer.data === 'string' ? answer.data.length : null, pss_kib: pss() });
      reply({ ...answer, host_ms: ms });
    }
    const stopStart = process.hrtime.bigint();
    running.closeStdin();
    // The server stops what it started (a tmux server outlives its client) on end of input; then the kill.
    await Promise.race([running.exit, new Promise((done) => setTimeout(done, GRACEFUL_STOP_MS).unref())]);
    const failures = await release();
    running = null;
    journal({ op: 'teardown', ms: msSince(stopStart), failures });
    // stdin stays open on the provider's side: exit once the answer is written.
    reply({ ok: failures.length === 0, op: 'stop', failures }, () => process.exit(0));
  } catch (error) {
    const failures = await release();
    reply({ ok: false, error: error instanceof Error ? error.message : String(error), failures }, () => process.exit(1));
  }
}

await main();
