/**
 * Everything Podman and Docker share: the engine handle, importing the task image tagged by its
 * digest, the `run` argv, launching and removing named containers, pids of a container, the
 * write-through workspace, and one Executor built from engine-specific hooks (probe/start/stop).
 * podman.ts and docker.ts only say how to reach their engine.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import { listProcesses, procInfo, type ProcInfo } from '../harness/controls/proc-tree.ts';
import { withLock } from '../harness/image/file-lock.ts';
import type { TaskImage } from '../harness/image/task-image.ts';
import { RUN_LABEL, type ResourceHandle } from '../harness/run/cleanup-registry.ts';
import type {
  BudgetPlacement,
  CandidateFiles,
  ExitInfo,
  OutputLine,
  ProbeResult,
  RunContext,
  RunningTrial,
  TaskCommand,
  TrialContext,
  TrialControls,
  WorkspaceBinding,
  ExecutorImplementation,
} from '../harness/contracts/executor.ts';
import { SANDBOX_PATH } from './launch-prefix.ts';
import { runCommand } from './launch/helper-command.ts';
import { serviceEnv, serviceSocketTarget, validateExtras } from './sandbox-extras.ts';
import { startTrial } from './spawn-trial.ts';
import { copyWorkspace, diffWorkspaces, readCandidate } from './workspace-diff.ts';

export type EngineKind = 'podman' | 'docker';

/** How to talk to one container engine. */
export interface ContainerEngine {
  kind: EngineKind;
  /** Client binary (absolute path or name on PATH). */
  cli: string;
  /** Arguments before the subcommand (docker: `-H unix://...`). */
  globalArgs: string[];
  /** Extra environment for the client (docker: DOCKER_API_VERSION). */
  env: Record<string, string>;
}

/** Label on imported task images. Images are shared across runs (keyed by digest), so they carry
 *  this label instead of a run id and are never deleted per run; `sandbench clean` may remove them. */
export const IMAGE_LABEL = 'sandbench.image';

/** Rlimits passed explicitly: raising them is not permitted here (no CAP_SYS_RESOURCE, hard nofile
 *  20000), so engine defaults fail with "error setting rlimit type 7" (backend-notes: Podman). */
export const CONTAINER_ULIMITS = ['nofile=1024:1024', 'nproc=4096:4096'] as const;

/** Seconds a stop may take before SIGKILL: 0, the trial is over when we remove a container. */
const REMOVE_STOP_SECONDS = '0';

/** timeout(1)'s exit code, given to an engine command that ran past its timeout. */
export const ENGINE_TIMEOUT_EXIT = 124;

/**
 * One engine CLI command, never rejecting. Podman traps the SIGTERM of a timeout and exits 0 with no
 * output, so a timed-out command is given exit 124 and a stderr that says so: every caller's exit check
 * then sees a hung engine (e.g. a libpod lock held by an OOM-killed client) as a failure, never as an
 * empty success (a `podman rm` that "succeeded" that way left a container behind, 2026-12-01).
 * It runs through the run's launcher when it has one (runCommand): every rollout removes its
 * container this way, and a Node spawn would fork the whole harness for it.
 */
export async function engineExec(engine: ContainerEngine, args: string[], timeoutMs = 120_000): Promise<EngineResult> {
  const result = await runCommand([engine.cli, ...engine.globalArgs, ...args], { env: engine.env, inheritEnv: true, timeoutMs });
  if (!result.timedOut) return { exitCode: result.exitCode ?? undefined, stdout: result.stdout, stderr: result.stderr };
  const said = result.stderr.trim();
  return { exitCode: ENGINE_TIMEOUT_EXIT, stdout: result.stdout, stderr: `${engine.kind} ${args[0]} timed out after ${timeoutMs / 1000} s${said ? `: ${said}` : ''}` };
}

/** What an engine command left: its exit (undefined when it could not start), its output. */
export interface EngineResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

export function taskImageTag(digest: string): string {
  return `sandbench-task:${digest.replace(/^sha256:/, '').slice(0, 12)}`;
}

/**
 * Container names allow [a-zA-Z0-9][a-zA-Z0-9_.-]; the run id prefix lets `sandbench clean` find
 * them. The launch suffix keeps a re-run trial (resume after kill -9) from colliding with a leftover.
 */
export function containerName(runId: string, trialId: string, launchSuffix: string = randomBytes(3).toString('hex')): string {
  return `sandbench-${runId}-${trialId}-${launchSuffix}`.replace(/[^a-zA-Z0-9_.-]/g, '-');
}

const layersSchema = z.array(z.string());

/** First layer diffID of `tag`, or null when the image is absent. */
async function importedLayer(engine: ContainerEngine, tag: string): Promise<string | null> {
  const result = await engineExec(engine, ['image', 'inspect', '--format', '{{json .RootFS.Layers}}', tag]);
  if (result.exitCode !== 0) return null;
  const parsed = layersSchema.safeParse(JSON.parse(result.stdout.trim() || 'null'));
  return parsed.success ? (parsed.data[0] ?? null) : null;
}

/**
 * Import the image tar once per engine store, tagged by digest. The tar's sha256 equals the layer
 * diffID after import (backend-notes: "Task root filesystem"), so a present tag whose first layer
 * equals the digest is the same image and is reused.
 */
export async function ensureImportedImage(engine: ContainerEngine, image: TaskImage, lockDir: string, log: (m: string) => void): Promise<string> {
  const tag = taskImageTag(image.digest);
  if ((await importedLayer(engine, tag)) === image.digest) return tag;
  mkdirSync(dirname(lockDir), { recursive: true });
  return withLock(lockDir, async () => {
    if ((await importedLayer(engine, tag)) === image.digest) return tag;
    log(`${engine.kind}: importing task image ${image.digest} as ${tag}`);
    const result = await engineExec(engine, ['import', '--change', `LABEL ${IMAGE_LABEL}=1`, image.tarPath, tag], 600_000);
    if (result.exitCode !== 0) throw new Error(`${engine.kind} import failed: ${(result.stderr || result.stdout).trim()}`);
    const layer = await importedLayer(engine, tag);
    if (layer !== image.digest) throw new Error(`${engine.kind} import of ${image.tarPath}: layer ${layer} differs from image digest ${image.digest}`);
    return tag;
  });
}

export interface RunArgvInput {
  kind: EngineKind;
  name: string;
  runId: string;
  trialId: string;
  imageTag: string;
  workspaceHostPath: string;
  task: TaskCommand;
  controls: TrialControls;
  budget: BudgetPlacement | null;
  /** Podman: where conmon writes its pid, so removal can wait on that one process (removeContainer). */
  conmonPidFile?: string;
  /** The OCI runtime (`--runtime`): podman the arm's build.runtime path (default `runc`); docker the name it is registered under (default: the daemon's). */
  runtime?: string;
}

/**
 * A task's environment and extras as engine flags: tool layers read-only, the service socket bound
 * in; the network stays `none` (lo only). Shared by `run` and the checkpoint mechanisms' parents.
 */
export function containerExtras(task: Pick<TaskCommand, 'env' | 'mounts' | 'service'>): { args: string[]; env: Record<string, string> } {
  const service = task.service ? serviceEnv(task.service, { socket: serviceSocketTarget(task.service) }) : {};
  return {
    env: { PATH: SANDBOX_PATH, HOME: '/tmp', LANG: 'C.UTF-8', ...task.env, ...service },
    args: [
      ...(task.mounts ?? []).flatMap((mount) => ['--mount', `type=bind,source=${mount.source},target=${mount.target},readonly`]),
      ...(task.service ? ['--mount', `type=bind,source=${task.service.socketPath},target=${serviceSocketTarget(task.service)}`] : []),
    ],
  };
}

/** Global flags + `run ...` for one trial (pure, so the argv is unit-testable). */
export function containerRunArgv(input: RunArgvInput): { globalArgs: string[]; runArgs: string[] } {
  const globalArgs: string[] = [];
  // Podman: the budget's path is a cgroupfs path (cgroup v1 here), so the manager must match.
  if (input.kind === 'podman' && input.budget) globalArgs.push('--cgroup-manager', 'cgroupfs');
  const { task } = input;
  const { args: extras, env } = containerExtras(task);
  const runArgs = [
    'run',
    // --rm keeps the normal path clean; killed trials are removed by name (see removeContainer).
    '--rm',
    '--name', input.name,
    '--label', `${RUN_LABEL}=${input.runId}`,
    '--label', `sandbench.trial_id=${input.trialId}`,
    '--network', 'none',
    '--pull', 'never',
    // crun refuses cgroup v1 hybrid ("cgroups in hybrid mode not supported"); runc works.
    ...(input.kind === 'podman' ? ['--runtime', input.runtime ?? 'runc'] : input.runtime ? ['--runtime', input.runtime] : []),
    ...CONTAINER_ULIMITS.flatMap((limit) => ['--ulimit', limit]),
    '--mount', `type=bind,source=${input.workspaceHostPath},target=/workspace`,
    ...extras,
    '--workdir', '/workspace',
    ...Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
  ];
  if (input.kind === 'podman' && input.conmonPidFile) runArgs.push('--conmon-pidfile', input.conmonPidFile);
  if (input.controls.cpus) runArgs.push('--cpuset-cpus', input.controls.cpus);
  if (input.controls.memoryMiB !== null) {
    // memory-swap = memory: the limit covers RAM+swap, i.e. no swap, like the density budget.
    const limit = `${input.controls.memoryMiB}m`;
    runArgs.push('--memory', limit, '--memory-swap', limit);
  }
  if (input.budget) runArgs.push('--cgroup-parent', input.budget.cgroupParent);
  if (input.task.stdin === 'pipe') runArgs.push('--interactive');
  runArgs.push(input.imageTag, ...input.task.argv);
  return { globalArgs, runArgs };
}

/**
 * The client's argv: as is, or (a budget with clients 'inside') behind the budget's enter prefix, so
 * the `podman run`/`docker run` client and its children are born inside the batch's cgroups.
 */
export function clientArgv(budget: BudgetPlacement | null, argv: string[]): string[] {
  return budget?.clients === 'inside' ? [...budget.enterArgv, ...argv] : argv;
}

/** How long `rm --force` may take before removal fails (a hung engine, e.g. a held libpod lock). */
const REMOVE_TIMEOUT_MS = 60_000;

export interface RemoveOptions {
  timeoutMs?: number;
  /** Podman: the file `run --conmon-pidfile` named, when the harness launched the container itself. */
  conmonPidFile?: string;
}

/** Force-remove a container by name; absent is fine (idempotent). */
export async function removeContainer(engine: ContainerEngine, name: string, options: RemoveOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? REMOVE_TIMEOUT_MS;
  const args = engine.kind === 'podman' ? ['rm', '--force', '--ignore', '--time', REMOVE_STOP_SECONDS, name] : ['rm', '--force', name];
  const deadline = Date.now() + timeoutMs;
  const result = await engineExec(engine, args, timeoutMs);
  // Two removers can race (a trial's own kill and a signal's release of every resource): docker
  // refuses the second with "already in progress". That removal is ours too, so wait for it.
  if (result.exitCode !== 0 && /removal of container .* is already in progress/i.test(result.stderr)) {
    await containerGone(engine, name, deadline);
  } else if (result.exitCode !== 0 && !/no such container/i.test(result.stderr)) {
    throw new Error(`${engine.kind} rm -f ${name} failed: ${result.stderr.trim()}`);
  }
  if (engine.kind === 'podman') await conmonGone(name, options.conmonPidFile);
}

/** Poll until the engine no longer knows the container; past the deadline, removal has failed. */
async function containerGone(engine: ContainerEngine, name: string, deadline: number): Promise<void> {
  for (;;) {
    const inspected = await engineExec(engine, ['container', 'inspect', '--format', '{{.Id}}', name], Math.max(1_000, deadline - Date.now()));
    if (inspected.exitCode !== 0 && /no such (container|object)/i.test(inspected.stderr)) return;
    if (Date.now() >= deadline) throw new Error(`${engine.kind} rm -f ${name}: another removal of it was in progress and it still exists`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const CONMON_EXIT_WAIT_MS = 15_000;

/**
 * `podman rm` returns once the container is gone, but its conmon may still be running its exit
 * command (`podman container cleanup`, a Go binary: ~0.1 s, seconds under load). Removal waits for
 * it, so a caller that checks for leftovers right after (a test, `clean`) sees none. Bounded: a
 * conmon that outlives the wait is left for the leftover checks to name.
 */
async function conmonGone(name: string, pidFile?: string): Promise<void> {
  const deadline = Date.now() + CONMON_EXIT_WAIT_MS;
  const isConmonOf = (p: ProcInfo | null) => p !== null && p.comm === 'conmon' && p.cmdline.split(' ').includes(name);
  const pid = pidFile ? pidIn(pidFile) : null;
  // With conmon's own pid, each poll reads that one process (the name check guards against pid
  // reuse); without it, each poll scans the process table, ≈ 0.7 ms of harness CPU at 73 processes.
  const alive = pid !== null ? () => isConmonOf(procInfo(pid)) : () => listProcesses().some(isConmonOf);
  while (alive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** The pid a pid file holds, or null when it is absent or unreadable (conmon never started). */
function pidIn(file: string): number | null {
  try {
    return positivePid(readFileSync(file, 'utf8').trim());
  } catch {
    return null;
  }
}

/** Names of containers (running or not) labelled with this run id. */
export async function containersOfRun(engine: ContainerEngine, runId: string): Promise<string[]> {
  const result = await engineExec(engine, ['ps', '--all', '--filter', `label=${RUN_LABEL}=${runId}`, '--format', '{{.Names}}']);
  if (result.exitCode !== 0) throw new Error(`${engine.kind} ps failed: ${result.stderr.trim()}`);
  return result.stdout.split('\n').map((line) => line.trim()).filter(Boolean);
}

/** For `sandbench clean`: remove every container labelled by a sandbench run (or by one run id). */
export async function removeLabelledContainers(engine: ContainerEngine, runId: string | null): Promise<string[]> {
  const filter = runId === null ? `label=${RUN_LABEL}` : `label=${RUN_LABEL}=${runId}`;
  const result = await engineExec(engine, ['ps', '--all', '--filter', filter, '--format', '{{.Names}}']);
  if (result.exitCode !== 0) throw new Error(`${engine.kind} ps failed: ${result.stderr.trim()}`);
  const names = result.stdout.split('\n').map((line) => line.trim()).filter(Boolean);
  for (const name of names) await removeContainer(engine, name);
  return names;
}

/** For `sandbench clean --images`: remove the imported task images (shared across runs, so never per run). */
export async function removeTaskImages(engine: ContainerEngine): Promise<string[]> {
  const result = await engineExec(engine, ['images', '--filter', `label=${IMAGE_LABEL}=1`, '--format', '{{.Repository}}:{{.Tag}}']);
  if (result.exitCode !== 0) throw new Error(`${engine.kind} images failed: ${result.stderr.trim()}`);
  const tags = [...new Set(result.stdout.split('\n').map((line) => line.trim()).filter(Boolean))];
  for (const tag of tags) await engineExec(engine, ['rmi', tag]);
  return tags;
}

/**
 * Whether the engine logged a `kill` of this container since `sinceMs`: the client exiting 137
 * looks the same whether the task died or someone ran `podman kill`/`docker kill` from outside,
 * but only the latter goes through the engine (the harness's own kills are flagged before they happen).
 */
export async function engineLoggedKill(engine: ContainerEngine, name: string, sinceMs: number): Promise<boolean> {
  const since = String(Math.floor(sinceMs / 1000) - 1);
  const filters = ['--filter', `container=${name}`, '--filter', 'event=kill'];
  const args = engine.kind === 'podman'
    ? ['events', '--stream=false', '--since', since, ...filters, '--format', '{{.Status}}']
    // docker events streams unless --until is given; "now" ends the query at once.
    : ['events', '--since', since, '--until', (Date.now() / 1000).toFixed(3), ...filters, '--format', '{{.Action}}'];
  const result = await engineExec(engine, args, 15_000);
  return result.exitCode === 0 && result.stdout.split('\n').some((line) => line.trim() === 'kill');
}

/**
 * Exit codes the engines give their own failures, not the task's: 125 the engine's error, 126 the
 * runtime could not start the container's command (an OCI runtime error: crun refusing a cgroup v1
 * hybrid host, runsc missing a flag it needs), 127 the command was not found in the image.
 */
const ENGINE_EXITS = new Set([125, 126, 127]);
/** The engine's own error line; a task's stderr does not start with it. */
const ENGINE_ERROR_LINE: Record<EngineKind, RegExp> = { podman: /^Error: /, docker: /^docker: |^Error response from daemon/ };
/**
 * The runtime made the container but could not exec the task's own argv (runc, through podman or
 * docker: `exec: "<argv0>": stat <argv0>: no such file or directory` / `exec: "<argv0>": permission
 * denied`): the task named a command its image lacks, which is the task's failure, not the runtime's.
 */
const TASK_COMMAND_REFUSED = /exec: "[^"]*": (stat [^:]*: no such file or directory|permission denied|executable file not found)/;
/** How many stderr lines before the engine's error are kept: a runtime prints its own cause there (runsc's "starting container: ..."). */
export const RUNTIME_MESSAGE_LINES = 3;

/**
 * The engine's or the runtime's start failures (exit 125–127 plus the engine's error line, the
 * container never having said it was ready), told apart from a task exiting 125–127: infrastructure
 * (`setup_failed`), with the runtime's own words as the reason.
 */
export function classifyEngineExit(kind: EngineKind, info: ExitInfo, lines: readonly OutputLine[]): ExitInfo['infraFailure'] {
  if (info.timedOut || info.exitCode === null || !ENGINE_EXITS.has(info.exitCode)) return undefined;
  if (lines.some((line) => line.stream === 'stdout' && line.text.startsWith('REFERENCE_READY'))) return undefined;
  const stderr = lines.filter((line) => line.stream === 'stderr' && line.text.trim() !== '');
  const errorAt = stderr.findIndex((line) => ENGINE_ERROR_LINE[kind].test(line.text));
  if (errorAt < 0 || (info.exitCode !== 125 && TASK_COMMAND_REFUSED.test(stderr[errorAt]!.text))) return undefined;
  const message = stderr.slice(Math.max(0, errorAt - RUNTIME_MESSAGE_LINES), errorAt + 1).map((line) => line.text.trim());
  return { category: 'setup_failed', reason: `${kind} run exited ${info.exitCode}, the container never started: ${message.join(' | ')}` };
}

export interface ContainerPids {
  /** Host pid of the container's init process; null when not running. */
  init: number | null;
  /** The per-container supervisor: conmon (Podman, inside a --cgroup-parent budget) or the
   *  containerd shim (Docker, outside it). */
  supervisor: number | null;
  supervisorKind: 'conmon' | 'containerd-shim';
}

function parentPid(pid: number): number | null {
  try {
    const match = /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

const positivePid = (text: string | undefined): number | null => {
  const value = Number(text);
  return Number.isInteger(value) && value > 0 ? value : null;
};

export async function containerPids(engine: ContainerEngine, name: string): Promise<ContainerPids> {
  const format = engine.kind === 'podman' ? '{{.State.Pid}} {{.State.ConmonPid}}' : '{{.State.Pid}}';
  const result = await engineExec(engine, ['inspect', '--format', format, name]);
  const [initText, conmonText] = result.exitCode === 0 ? result.stdout.trim().split(/\s+/) : [];
  const init = positivePid(initText);
  if (engine.kind === 'podman') return { init, supervisor: positivePid(conmonText), supervisorKind: 'conmon' };
  // Docker does not report the shim; the container's init is the shim's direct child.
  return { init, supervisor: init === null ? null : parentPid(init), supervisorKind: 'containerd-shim' };
}

/** 'v1-hybrid' is where crun refuses to run (backend-notes: Podman). */
export function cgroupMode(): 'v2' | 'v1-hybrid' | 'v1' {
  const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((line) => line.split(' '));
  const at = (path: string) => mounts.find((fields) => fields[1] === path)?.[2];
  if (at('/sys/fs/cgroup') === 'cgroup2') return 'v2';
  return at('/sys/fs/cgroup/unified') === 'cgroup2' ? 'v1-hybrid' : 'v1';
}

export async function firstLine(argv: string[]): Promise<string | null> {
  const result = await execa(argv[0]!, argv.slice(1), { reject: false, timeout: 30_000 });
  return result.exitCode === 0 ? (`${result.stdout}${result.stderr}`.trim().split('\n')[0] ?? null) : null;
}

/** What a backend adds to the shared container executor. */
export interface EngineHooks {
  backend: 'podman' | 'docker';
  variant: string | null;
  probe(): Promise<ProbeResult>;
  /** Reach (or start) the engine for this run. */
  start(run: RunContext): Promise<ContainerEngine>;
  /** Release what start() started. Idempotent. */
  stop(): Promise<void>;
  /** The arm's build.runtime (harness/spec/arm-build.ts), passed as `--runtime`. */
  runtime?: string;
}

/** The Executor plus container-only extras the density engineer needs. */
export interface ContainerExecutor extends ExecutorImplementation {
  /** Container init and supervisor pids of a running trial (conmon / containerd shim). */
  containerPids(trial: TrialContext): Promise<ContainerPids>;
  /** Name of the trial's container while it is live (launch → finishTrial). */
  containerNameOf(trial: TrialContext): string | null;
  /** The engine handle after prepare() (for diagnostics and tests). */
  engine(): ContainerEngine | null;
  /** After prepare(): tag, engine image id and layer digest (= task image digest), for environment.json. */
  imageFacts(): Record<string, string> | null;
}

interface LiveContainer {
  name: string;
  handle: ResourceHandle;
}

export function createContainerExecutor(hooks: EngineHooks): ContainerExecutor {
  let engine: ContainerEngine | null = null;
  let imageTag: string | null = null;
  let imageFacts: Record<string, string> | null = null;
  let run: RunContext | null = null;
  const live = new Map<string, LiveContainer>();
  const workspaceOf = (trial: TrialContext) => join(trial.trialDir, 'workspace');
  const ready = (): { engine: ContainerEngine; imageTag: string; run: RunContext } => {
    if (!engine || !imageTag || !run) throw new Error(`${hooks.backend} executor: prepare() was not called`);
    return { engine, imageTag, run };
  };

  const finish = async (trialId: string) => {
    const container = live.get(trialId);
    if (!container || !run) return;
    live.delete(trialId);
    await run.cleanup.release(container.handle);
  };

  return {
    backend: hooks.backend,
    variant: hooks.variant,
    probe: () => hooks.probe(),
    async prepare(context) {
      run = context;
      engine = await hooks.start(context);
      const lockDir = join(context.stateDir, 'locks', `${hooks.backend}-import.lock`);
      imageTag = await ensureImportedImage(engine, context.image, lockDir, context.log);
      const id = await engineExec(engine, ['image', 'inspect', '--format', '{{.Id}}', imageTag]);
      imageFacts = { image_tag: imageTag, image_id: id.stdout.trim(), layer_digest: context.image.digest };
    },
    async stageWorkspace(trial): Promise<WorkspaceBinding> {
      await copyWorkspace(trial.baselineWorkspace, workspaceOf(trial));
      // A writable bind mount: the container writes through to this host copy. That is the
      // published finding for Podman/Docker, so the binding does not claim staging.
      return { hostPath: workspaceOf(trial), claimsStaging: false };
    },
    async launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial> {
      validateExtras(task);
      const { engine: eng, imageTag: tag, run: ctx } = ready();
      const name = containerName(ctx.runId, trial.trialId);
      const conmonPidFile = eng.kind === 'podman' ? join(trial.trialDir, `${name}.conmon.pid`) : undefined;
      const remove = () => removeContainer(eng, name, { conmonPidFile });
      const handle = ctx.cleanup.register('container', `${eng.kind}:${name}`, remove);
      live.set(trial.trialId, { name, handle });
      const { globalArgs, runArgs } = containerRunArgv({
        kind: eng.kind,
        name,
        runId: ctx.runId,
        trialId: trial.trialId,
        imageTag: tag,
        workspaceHostPath: workspaceOf(trial),
        task,
        controls: trial.controls,
        budget: trial.budget,
        runtime: hooks.runtime,
        conmonPidFile,
      });
      const base = await startTrial({
        argv: clientArgv(trial.budget, [eng.cli, ...eng.globalArgs, ...globalArgs, ...runArgs]),
        env: eng.env,
        // conmon inherits the client's cwd and (Debian's, before conmon#514) creates an `oom` file
        // there when the container is OOM-killed: keep that in the trial's own directory.
        cwd: trial.trialDir,
        stdin: task.stdin,
        timeoutMs: trial.timeoutMs,
        // Signalling the client does not stop a container the engine already runs: remove it.
        onKill: remove,
        classifyExit: (info, lines) => classifyEngineExit(eng.kind, info, lines),
      });
      // A container created after the first removal (kill during startup) is removed once the client is gone.
      let killed = false;
      const launchedAtMs = Date.now();
      const exit = base.exit.then(async (exited) => {
        let info = exited;
        // A signal death (exit >= 128) the harness did not cause: ask the engine whether it was a kill from outside.
        if (!killed && !info.timedOut && !info.infraFailure && (info.exitCode ?? 0) >= 128 && (await engineLoggedKill(eng, name, launchedAtMs).catch(() => false))) {
          info = { ...info, infraFailure: { category: 'killed_externally', reason: `${eng.kind} logged a kill of container ${name} that the harness did not send (\`${eng.kind} kill\` from outside); client exit ${info.exitCode}` } };
        } else if (!killed && !info.timedOut && !info.infraFailure && info.signal) {
          // The client itself died of a signal the harness never sent (e.g. another process's cleanup): infrastructure, not the task.
          info = { ...info, infraFailure: { category: 'killed_externally', reason: `the ${eng.kind} client of container ${name} died of ${info.signal}, which the harness did not send (killed from outside)` } };
        }
        if (killed || info.timedOut || info.signal) await remove().catch(() => undefined);
        return info;
      });
      return {
        tSpawnNs: base.tSpawnNs,
        timing: base.timing,
        lines: base.lines,
        onLine: (listener) => base.onLine(listener),
        writeStdin: (text) => base.writeStdin(text),
        closeStdin: () => base.closeStdin(),
        exit,
        async kill(reason) {
          killed = true;
          await base.kill(reason);
          await exit;
        },
        rootPids: () => base.rootPids(),
      };
    },
    async collect(trial, binding): Promise<CandidateFiles> {
      return {
        changed: await diffWorkspaces(trial.baselineWorkspace, binding.hostPath),
        read: (relativePath) => readCandidate(join(binding.hostPath, relativePath)),
        facts: { workspace_copy: binding.hostPath, write_through: true, image_tag: imageTag },
      };
    },
    finishTrial: (trial) => finish(trial.trialId),
    async teardown() {
      for (const trialId of [...live.keys()]) await finish(trialId);
      await hooks.stop();
    },
    async containerPids(trial) {
      const container = live.get(trial.trialId);
      if (!container) throw new Error(`${hooks.backend}: no live container for trial ${trial.trialId}`);
      return containerPids(ready().engine, container.name);
    },
    containerNameOf: (trial) => live.get(trial.trialId)?.name ?? null,
    engine: () => engine,
    imageFacts: () => imageFacts,
  };
}
