/**
 * `podman` checkpoint (files + process state), Podman + runc + CRIU >= 4.2:
 * parent = `podman create` of the task image running the state program on 127.0.0.1:PORT in its
 * own network namespace (--network none), the baseline copied into the container's rootfs with
 * `podman cp` — not bind-mounted, because a bind mount would be shared by every restored child
 * (notes: "Bind mounts are shared by all children"); the rootfs diff travels in the export instead.
 * Checkpoint = `podman container checkpoint --export F` (the parent stops: paused). Child i =
 * `podman container restore --import F --name <new>`; lo comes back DOWN after a restore under
 * --network none, so it is brought up with nsenter before the relay connects.
 * The host reaches the server through a relay process run inside the container's netns (nsenter -n).
 *
 * It honours MechanismTrial.attach: the parent gets the attempt's support mounts (read-only) and
 * the model-service socket bound in, with the environment the podman executor gives a fresh
 * container, and its cgroup parent; a restored child keeps the parent's configuration (CRIU restores
 * its mounts), except its cgroup: podman places a restored container under the cgroupParent of the
 * export's config.dump, so a child given its own budget restores from a copy of the export whose
 * config.dump names that budget (a tar of the unpacked export, ~20 ms for a small one).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ProbeResult, RunContext } from '../../harness/contracts/executor.ts';
import { RUN_LABEL } from '../../harness/run/cleanup-registry.ts';
import { CONTAINER_ULIMITS, containerExtras, engineExec, ensureImportedImage, removeContainer, type ContainerEngine } from '../container-common.ts';
import { createPodmanExecutor } from '../podman.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { probeCriu, type CriuProbe } from './criu.ts';
import { stopStateProcess } from './state-process.ts';
import { containerRelays, STATE_PORT, type ContainerSandbox } from './container-relay.ts';
import { TrialResources } from './tracked.ts';

export { STATE_PORT };

/** Container names: the run id prefix and label let `sandbench clean` find them. */
export function checkpointContainerName(runId: string, trialId: string, role: string): string {
  return `sandbench-${runId}-${trialId}-${role}-${randomBytes(2).toString('hex')}`.replace(/[^a-zA-Z0-9_.-]/g, '-');
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

/** Sizes inside an export: the rootfs diff (files) and everything else (CRIU images, config). */
export function exportSplit(listing: string): { diskBytes: number; memoryBytes: number } {
  let disk = 0;
  let memory = 0;
  for (const line of listing.split('\n')) {
    // GNU tar -tv: "-rw-r--r-- root/root   1234 2026-12-01 07:02 path"
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6 || !fields[0]!.startsWith('-')) continue;
    const size = Number(fields[2]);
    const path = fields.slice(5).join(' ');
    if (path.startsWith('rootfs-diff') || path.startsWith('./rootfs-diff')) disk += size;
    else memory += size;
  }
  return { diskBytes: disk, memoryBytes: memory };
}

/** Podman's global flags for a trial with a budget: cgroup parents here are cgroupfs paths (cgroup v1), as for the podman executor. */
function cgroupManagerArgs(trial: MechanismTrial): string[] {
  return trial.attach?.budget ? ['--cgroup-manager', 'cgroupfs'] : [];
}

/** Unpack an export (zstd tar) into `dir`, for children that restore from a rewritten copy. */
async function unpackExport(exportFile: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const untar = await execa('tar', ['-xf', exportFile, '-C', dir], { reject: false });
  if (untar.exitCode !== 0) throw new Error(`podman checkpoint: cannot unpack ${exportFile}: ${untar.stderr.trim()}`);
  return dir;
}

/**
 * The export a child restores from: the parent's, or, for a child with its own budget, a copy
 * whose config.dump has that cgroupParent (`unpacked`: the export unpacked once per trial).
 */
async function childExport(trial: MechanismTrial, exportFile: string, unpacked: () => Promise<string>, index: number): Promise<string> {
  const budget = trial.attach?.budget;
  if (!budget) return exportFile;
  const dir = await unpacked();
  const own = join(trial.dir, `child-${index}`);
  mkdirSync(own, { recursive: true });
  const config = JSON.parse(readFileSync(join(dir, 'config.dump'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(own, 'config.dump'), JSON.stringify({ ...config, cgroupParent: budget.cgroupParent }));
  const file = join(trial.dir, `child-${index}.tar`);
  const entries = readdirSync(dir).filter((name) => name !== 'config.dump');
  const packed = await execa('tar', ['-cf', file, '-C', dir, ...entries, '-C', own, 'config.dump'], { reject: false });
  if (packed.exitCode !== 0) throw new Error(`podman child ${index}: cannot write its export: ${packed.stderr.trim()}`);
  return file;
}

export function createPodmanCheckpoint(variant: string | null = null): CheckpointMechanism {
  const podman = createPodmanExecutor(variant);
  let engine: ContainerEngine | null = null;
  let imageTag: string | null = null;
  let criu: CriuProbe | null = null;
  const resources = new Map<string, TrialResources>();
  const sandboxes = new Map<string, ContainerSandbox>();
  const unpacked = new Map<string, Promise<string>>();
  const unpackedOf = (trial: MechanismTrial) => () => {
    if (!unpacked.has(trial.trialId)) unpacked.set(trial.trialId, unpackExport(exportOf(trial), join(trial.dir, 'export')));
    return unpacked.get(trial.trialId)!;
  };
  const resourcesOf = (trial: MechanismTrial) => {
    if (!resources.has(trial.trialId)) resources.set(trial.trialId, new TrialResources(trial.run.cleanup));
    return resources.get(trial.trialId)!;
  };
  const exportOf = (trial: MechanismTrial) => join(trial.dir, 'checkpoint.tar');
  const ready = () => {
    if (!engine || !imageTag || !criu) throw new Error('podman checkpoint: prepare() was not called');
    return { engine, imageTag, criu };
  };
  const podmanRun = async (args: string[], what: string, timeoutMs = 300_000) => {
    const result = await engineExec(ready().engine, args, timeoutMs);
    if (result.exitCode !== 0) throw new Error(`podman ${what} failed: ${(result.stderr || result.stdout).trim().split('\n').slice(-3).join(' | ')}`);
    return result.stdout.trim();
  };
  const relays = containerRelays('podman', podmanRun, resourcesOf, sandboxes);
  const { initPid, connect } = relays;
  const track = (trial: MechanismTrial, name: string) => resourcesOf(trial).add('container', `podman:${name}`, () => removeContainer(ready().engine, name));

  return {
    backend: 'podman',
    variant,
    preserves: 'files+process',
    attachments: 'honoured',
    async probe(): Promise<ProbeResult> {
      const base = await podman.probe();
      const found = await probeCriu();
      const details = { ...base.details, criu: found.version ? `${found.version} (${found.path})` : 'not installed' };
      if (!base.available) return { ...base, details };
      if (!found.usable) return { ...base, available: false, details, reason: found.reason, fix: found.fix };
      return { ...base, details };
    },
    async prepare(run: RunContext) {
      criu = await probeCriu();
      if (!criu.usable) throw new Error(`podman checkpoint: ${criu.reason}`);
      // runc (called by podman for checkpoint AND restore) finds criu through PATH.
      engine = { kind: 'podman', cli: 'podman', globalArgs: [], env: { PATH: criu.pathEnv } };
      imageTag = await ensureImportedImage(engine, run.image, join(run.stateDir, 'locks', 'podman-import.lock'), run.log);
    },
    async startParent(trial): Promise<ParentSandbox> {
      const { imageTag: tag } = ready();
      mkdirSync(trial.dir, { recursive: true });
      const name = checkpointContainerName(trial.run.runId, trial.trialId, 'parent');
      track(trial, name);
      const command = trial.program.tcp('/workspace', STATE_PORT);
      // attach (mechanism.ts): the executor's environment, mounts and service socket; the budget as cgroup parent
      const { attach } = trial;
      const extras = attach ? containerExtras({ env: command.env, mounts: attach.mounts, ...(attach.service ? { service: attach.service } : {}) }) : { args: [], env: command.env };
      await podmanRun([
        ...cgroupManagerArgs(trial),
        'create', '--name', name,
        '--label', `${RUN_LABEL}=${trial.run.runId}`, '--label', `sandbench.trial_id=${trial.trialId}`,
        '--runtime', 'runc', '--network', 'none', '--pull', 'never',
        ...CONTAINER_ULIMITS.flatMap((limit) => ['--ulimit', limit]),
        ...extras.args,
        ...(attach?.budget ? ['--cgroup-parent', attach.budget.cgroupParent] : []),
        '--workdir', '/workspace',
        ...Object.entries(extras.env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
        tag, ...command.argv,
      ], 'create');
      await podmanRun(['cp', `${trial.baseline}/.`, `${name}:/workspace/`], 'cp');
      await podmanRun([...cgroupManagerArgs(trial), 'start', name], 'start');
      const sandbox = await connect(trial, name, 'parent');
      return { ...sandbox, internal: name };
    },
    quiesce: (parent) => relays.quiesce(parent),
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      const file = exportOf(trial);
      resourcesOf(trial).add('tempdir', file, () => rmSync(file, { force: true }));
      await podmanRun([...cgroupManagerArgs(trial), 'container', 'checkpoint', '--export', file, String(parent.internal)], 'container checkpoint');
      const listing = await execa('tar', ['-tvf', file], { reject: false });
      const split = exportSplit(listing.stdout);
      return {
        ...split,
        parentPaused: true,
        facts: { export: file, export_bytes: statSync(file).size, criu: ready().criu.version, parent_after: 'stopped by checkpoint (exited, kept until discard)' },
      };
    },
    async restore(trial, _image, index): Promise<Sandbox> {
      const name = checkpointContainerName(trial.run.runId, trial.trialId, `child${index}`);
      track(trial, name);
      const file = await childExport(trial, exportOf(trial), unpackedOf(trial), index);
      await podmanRun([...cgroupManagerArgs(trial), 'container', 'restore', '--import', file, '--name', name], 'container restore');
      if (file !== exportOf(trial)) rmSync(file, { force: true });
      // lo is DOWN after every restore under --network none (notes, "Traps").
      const pid = await initPid(name);
      const up = await execa('nsenter', ['-t', String(pid), '-n', 'ip', 'link', 'set', 'lo', 'up'], { reject: false });
      if (up.exitCode !== 0) throw new Error(`podman child ${name}: cannot bring lo up: ${up.stderr.trim()}`);
      return connect(trial, name, `child-${index}`);
    },
    async frozenDigest(trial) {
      return fileSha256(exportOf(trial));
    },
    async destroy(trial, sandbox) {
      const entry = sandboxes.get(`${trial.trialId}/${sandbox.id}`);
      if (entry) await stopStateProcess(entry.relay).catch(() => undefined);
      // the child's container goes with it: its cgroup (an attempt's, under attach) can then be removed
      if (entry) await removeContainer(ready().engine, entry.name);
    },
    async discard(trial) {
      const tracked = resources.get(trial.trialId);
      resources.delete(trial.trialId);
      unpacked.delete(trial.trialId);
      for (const key of [...sandboxes.keys()].filter((k) => k.startsWith(`${trial.trialId}/`))) sandboxes.delete(key);
      const errors = tracked ? await tracked.releaseAll() : [];
      rmSync(trial.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      if (errors.length > 0) throw new Error(`podman checkpoint cleanup: ${errors.join('; ')}`);
    },
    async teardown() {},
  };
}

