/**
 * `docker` checkpoint (files + process state), Docker's experimental checkpoint + runc + CRIU >= 4.2,
 * on the harness's private dockerd (executors/dockerd-manager.ts: started with --experimental and
 * the sandbench-built CRIU first in its PATH; every docker arm shares it).
 * parent = `docker create` of the task image running the state program on 127.0.0.1:PORT
 * (--network none), the baseline copied in with `docker cp` (a bind mount would be shared by every
 * child). Checkpoint = `docker checkpoint create` (the parent stops: paused) + `docker cp` of the
 * parent's /workspace to a tar: Docker saves no rootfs diff (data/checkpoint/notes.md, section 2),
 * so the files travel beside the CRIU images. Child i = Docker's undocumented fork path: `docker
 * create` with the parent's configuration, the checkpoint directory copied into the child's own
 * `<data-root>/containers/<id>/checkpoints/`, the workspace tar copied in, `start --checkpoint`
 * (`--checkpoint-dir` is refused: "custom checkpointdir is not supported"). What the child gets is
 * the image + the parent's /workspace + its processes: files the parent changed outside /workspace
 * are not carried (recorded in the image facts). The host reaches the server through a relay run
 * in the container's netns (nsenter -n).
 *
 * It honours MechanismTrial.attach: the parent's configuration, which every child is created with,
 * carries the attempt's read-only mounts, the model-service socket and the docker executor's
 * environment; each container gets the cgroup parent of the trial it is made for (a child its own
 * attempt's), since a child is a `docker create` of its own.
 */
import { execa } from 'execa';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ProbeResult, RunContext } from '../../harness/contracts/executor.ts';
import { RUN_LABEL, type ResourceHandle } from '../../harness/run/cleanup-registry.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { CONTAINER_ULIMITS, containerExtras, engineExec, ensureImportedImage, removeContainer, type ContainerEngine } from '../container-common.ts';
import { dockerCli } from '../docker.ts';
import { acquireDockerd, dockerdPaths, type DockerdPaths } from '../dockerd-manager.ts';
import { inventory, treeDigest } from '../workspace-diff.ts';
import { probeCriu, type CriuProbe } from './criu.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { checkpointContainerName, fileSha256 } from './podman-mechanism.ts';
import { stopStateProcess } from './state-process.ts';
import { containerRelays, STATE_PORT, type ContainerSandbox } from './container-relay.ts';
import { retryContentRace, type ContentRaceOutcome } from './content-race.ts';
import { TrialResources } from './tracked.ts';

/** Checkpoint names need >= 2 characters (notes, section 2). */
const CHECKPOINT_NAME = 'sandbench';

/**
 * containerd unpacks each checkpoint it restores into `<its TMPDIR>/ctrd-checkpoint*` and never
 * removes it (DockerdPaths.tmpDir; /tmp for a daemon an older build started): remove the copies of
 * this checkpoint, known by holding every one of its files byte for byte, so a long run on a shared
 * daemon does not pile up one copy per child. A copy of another trial's checkpoint, or one still
 * being unpacked, differs and stays. Sizes first, so only a likely copy is hashed.
 */
export function removeUnpackedCopies(tmpDirs: readonly string[], checkpoint: string): number {
  if (!existsSync(checkpoint)) return 0;
  const ours = [...inventory(checkpoint)].filter(([, entry]) => entry.type === 'file');
  if (ours.length === 0) return 0;
  const sizes = new Map(ours.map(([path]) => [path, statSync(join(checkpoint, path)).size]));
  const sameSizes = (copy: string) => [...sizes].every(([path, size]) => {
    try {
      return statSync(join(copy, path)).size === size;
    } catch {
      return false;
    }
  });
  let removed = 0;
  for (const dir of new Set(tmpDirs)) {
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir).filter((name) => name.startsWith('ctrd-checkpoint'))) {
      const copy = join(dir, entry);
      if (!sameSizes(copy)) continue;
      const theirs = inventory(copy);
      if (!ours.every(([path, file]) => theirs.get(path)?.digest === file.digest)) continue;
      rmSync(copy, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

/** Whether the harness dockerd runs (or would start) with experimental features. */
export async function harnessDockerdExperimental(host = dockerdPaths(stateDir()).host): Promise<{ experimental: boolean; evidence: string }> {
  const info = await execa(dockerCli(), ['-H', host, 'info', '--format', '{{.ExperimentalBuild}}'], { reject: false, timeout: 15_000 });
  if (info.exitCode === 0) return { experimental: info.stdout.trim() === 'true', evidence: `docker info on ${host}: ExperimentalBuild=${info.stdout.trim()}` };
  return { experimental: true, evidence: 'harness dockerd not running; it starts with --experimental (executors/dockerd-manager.ts)' };
}

/** Sum of file sizes below `dir` (the CRIU images of one checkpoint). */
function treeBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += treeBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}


interface ParentState {
  name: string;
  id: string;
  /** The argv/env `docker create` got, so children get the same configuration. */
  createArgs: string[];
}

export function createDockerCheckpoint(variant: string | null = null): CheckpointMechanism {
  let engine: ContainerEngine | null = null;
  let paths: DockerdPaths | null = null;
  let imageTag: string | null = null;
  let criu: CriuProbe | null = null;
  let daemon: { run: RunContext; handle: ResourceHandle } | null = null;
  const resources = new Map<string, TrialResources>();
  const sandboxes = new Map<string, ContainerSandbox>();
  const parents = new Map<string, ParentState>();
  /** Per trial: the tail of its children's `start --checkpoint` queue. */
  const startQueue = new Map<string, Promise<void>>();
  const resourcesOf = (trial: MechanismTrial) => {
    if (!resources.has(trial.trialId)) resources.set(trial.trialId, new TrialResources(trial.run.cleanup));
    return resources.get(trial.trialId)!;
  };
  const filesOf = (trial: MechanismTrial) => join(trial.dir, 'workspace.tar');
  const ready = () => {
    if (!engine || !paths || !imageTag || !criu) throw new Error('docker checkpoint: prepare() was not called');
    return { engine, paths, imageTag, criu };
  };
  const checkpointDir = (id: string) => join(ready().paths.dataRoot, 'containers', id, 'checkpoints', CHECKPOINT_NAME);
  const docker = async (args: string[], what: string, options: { input?: string; output?: string; timeoutMs?: number } = {}) => {
    const { engine: e } = ready();
    const result = options.input || options.output
      ? await execa(e.cli, [...e.globalArgs, ...args], { env: e.env, reject: false, timeout: options.timeoutMs ?? 300_000, ...(options.input ? { inputFile: options.input } : { stdin: 'ignore' }), ...(options.output ? { stdout: { file: options.output } } : {}) })
      : await engineExec(e, args, options.timeoutMs ?? 300_000);
    if (result.exitCode !== 0) throw new Error(`docker ${what} failed: ${String(result.stderr || result.stdout).trim().split('\n').slice(-3).join(' | ')}`);
    return String(result.stdout ?? '').trim();
  };
  const relays = containerRelays('docker', docker, resourcesOf, sandboxes);
  const { connect } = relays;
  // Removing a container removes its directory, and with it the checkpoint copied into it.
  const track = (trial: MechanismTrial, name: string) => resourcesOf(trial).add('container', `docker:${name}`, () => removeContainer(ready().engine, name));
  const create = async (trial: MechanismTrial, role: string, createArgs: string[]): Promise<{ name: string; id: string }> => {
    const name = checkpointContainerName(trial.run.runId, trial.trialId, role);
    track(trial, name);
    // attach: the budget this container is made for (the group's for the parent, the attempt's for a child)
    const cgroup = trial.attach?.budget ? ['--cgroup-parent', trial.attach.budget.cgroupParent] : [];
    const id = await docker(['create', '--name', name, '--label', `${RUN_LABEL}=${trial.run.runId}`, '--label', `sandbench.trial_id=${trial.trialId}`, ...cgroup, ...createArgs], 'create');
    return { name, id };
  };

  return {
    backend: 'docker',
    variant,
    preserves: 'files+process',
    attachments: 'honoured',
    async probe(): Promise<ProbeResult> {
      const client = await execa(dockerCli(), ['--version'], { reject: false });
      if (client.exitCode !== 0) return { backend: 'docker', available: false, version: null, details: {}, reason: 'the docker client is not installed', fix: 'apt-get install docker.io' };
      const found = await probeCriu();
      const details: Record<string, string> = { criu: found.version ? `${found.version} (${found.path})` : 'not installed' };
      if (!found.usable) return { backend: 'docker', available: false, version: client.stdout.trim(), details, reason: found.reason, fix: found.fix };
      const daemon = await harnessDockerdExperimental();
      details.daemon = daemon.evidence;
      if (!daemon.experimental) {
        return {
          backend: 'docker',
          available: false,
          version: client.stdout.trim(),
          details,
          reason: 'the running harness dockerd was started without --experimental (by an older sandbench), and docker checkpoint needs it',
          fix: 'stop it once no run uses it (sandbench clean, or scripts/start-dockerd.sh stop); the next docker run starts it with --experimental',
        };
      }
      return { backend: 'docker', available: true, version: client.stdout.trim(), details };
    },
    async prepare(run: RunContext) {
      criu = await probeCriu();
      if (!criu.usable) throw new Error(`docker checkpoint: ${criu.reason}`);
      const lease = await acquireDockerd({ stateDir: run.stateDir, runId: run.runId, cli: dockerCli(), log: run.log });
      daemon = { run, handle: run.cleanup.register('daemon', `dockerd ${lease.paths.socket}`, async () => void (await lease.release())) };
      paths = lease.paths;
      engine = { kind: 'docker', cli: dockerCli(), globalArgs: ['-H', lease.host], env: {} };
      const mode = await harnessDockerdExperimental(lease.host);
      if (!mode.experimental) throw new Error(`docker checkpoint: ${mode.evidence} (the daemon must run with --experimental)`);
      imageTag = await ensureImportedImage(engine, run.image, join(run.stateDir, 'locks', 'docker-import.lock'), run.log);
    },
    async startParent(trial): Promise<ParentSandbox> {
      const { imageTag: tag } = ready();
      mkdirSync(trial.dir, { recursive: true });
      const command = trial.program.tcp('/workspace', STATE_PORT);
      // attach (mechanism.ts): the executor's environment, mounts and service socket, in every child too
      const { attach } = trial;
      const extras = attach ? containerExtras({ env: command.env, mounts: attach.mounts, ...(attach.service ? { service: attach.service } : {}) }) : { args: [], env: command.env };
      const createArgs = [
        '--network', 'none',
        ...CONTAINER_ULIMITS.flatMap((limit) => ['--ulimit', limit]),
        ...extras.args,
        '--workdir', '/workspace',
        ...Object.entries(extras.env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
        tag, ...command.argv,
      ];
      const { name, id } = await create(trial, 'parent', createArgs);
      parents.set(trial.trialId, { name, id, createArgs });
      await docker(['cp', `${trial.baseline}/.`, `${name}:/workspace/`], 'cp');
      await docker(['start', name], 'start');
      const sandbox = await connect(trial, name, 'parent');
      return { ...sandbox, internal: name };
    },
    quiesce: (parent) => relays.quiesce(parent),
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      const state = parents.get(trial.trialId);
      if (!state || state.name !== parent.internal) throw new Error(`docker checkpoint: no parent container for ${trial.trialId}`);
      await docker(['checkpoint', 'create', state.name, CHECKPOINT_NAME], 'checkpoint create');
      const files = filesOf(trial);
      resourcesOf(trial).add('tempdir', files, () => rmSync(files, { force: true }));
      await docker(['cp', `${state.name}:/workspace`, '-'], 'cp (workspace out)', { output: files });
      return {
        diskBytes: statSync(files).size,
        memoryBytes: treeBytes(checkpointDir(state.id)),
        parentPaused: true,
        facts: {
          checkpoint_dir: checkpointDir(state.id),
          workspace_tar: files,
          criu: ready().criu.version,
          parent_after: 'stopped by checkpoint (exited, kept until discard)',
          files_carried: '/workspace only (docker checkpoints save no rootfs diff)',
        },
      };
    },
    async restore(trial, _image, index): Promise<Sandbox> {
      const state = parents.get(trial.trialId);
      if (!state) throw new Error(`docker restore: no checkpoint for ${trial.trialId}`);
      const restoreStart = process.hrtime.bigint();
      const { name, id } = await create(trial, `child${index}`, state.createArgs);
      // Docker's fork path: the checkpoint goes into the child's own checkpoints directory.
      const target = checkpointDir(id);
      mkdirSync(join(target, '..'), { recursive: true });
      cpSync(checkpointDir(state.id), target, { recursive: true });
      await docker(['cp', '-', `${name}:/`], 'cp (workspace in)', { input: filesOf(trial) });
      // K children of one checkpoint upload identical content (content-race.ts), so this
      // process's `start --checkpoint` calls for one trial run one at a time. A start refused by
      // another process's upload is retried after a pause. The wait behind siblings and the time
      // lost to refusals are reported apart (startedNs → queued_ms); the fan-out time includes them.
      const entered = process.hrtime.bigint();
      const turn = startQueue.get(trial.trialId) ?? Promise.resolve();
      let done!: () => void;
      startQueue.set(trial.trialId, turn.then(() => new Promise<void>((resolve) => (done = resolve))));
      await turn;
      const waitedNs = process.hrtime.bigint() - entered;
      let start: ContentRaceOutcome<string>;
      try {
        start = await retryContentRace(() => docker(['start', '--checkpoint', CHECKPOINT_NAME, name], 'start --checkpoint'));
      } finally {
        done();
      }
      const sandbox = await connect(trial, name, `child-${index}`);
      const facts = start.retries > 0 ? { ...sandbox.facts, content_race_retries: start.retries } : sandbox.facts;
      return { ...sandbox, facts, startedNs: restoreStart + waitedNs + start.lostNs };
    },
    async frozenDigest(trial) {
      const state = parents.get(trial.trialId);
      if (!state) return null;
      // The frozen state is the CRIU images (kept in the parent's directory) and the files tar.
      return `sha256:${createHash('sha256').update(treeDigest(checkpointDir(state.id))).update(await fileSha256(filesOf(trial))).digest('hex')}`;
    },
    async destroy(trial, sandbox) {
      const entry = sandboxes.get(`${trial.trialId}/${sandbox.id}`);
      if (entry) await stopStateProcess(entry.relay).catch(() => undefined);
      // the child's container goes with it: its cgroup (an attempt's, under attach) can then be removed
      if (entry) await removeContainer(ready().engine, entry.name);
    },
    async discard(trial) {
      // Before the parent (and its checkpoint dir) goes: its images tell our unpacked copies apart.
      const parent = parents.get(trial.trialId);
      if (parent && paths) removeUnpackedCopies([paths.tmpDir, '/tmp'], checkpointDir(parent.id));
      const tracked = resources.get(trial.trialId);
      resources.delete(trial.trialId);
      parents.delete(trial.trialId);
      startQueue.delete(trial.trialId);
      for (const key of [...sandboxes.keys()].filter((k) => k.startsWith(`${trial.trialId}/`))) sandboxes.delete(key);
      const errors = tracked ? await tracked.releaseAll() : [];
      rmSync(trial.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      if (errors.length > 0) throw new Error(`docker checkpoint cleanup: ${errors.join('; ')}`);
    },
    async teardown() {
      // This run's lease on the shared daemon; the last holder stops it.
      if (daemon) await daemon.run.cleanup.release(daemon.handle);
      daemon = null;
    },
  };
}
