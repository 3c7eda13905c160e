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
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ProbeResult, RunContext } from '../../harness/contracts/executor.ts';
import { RUN_LABEL } from '../../harness/run/cleanup-registry.ts';
import { CONTAINER_ULIMITS, engineExec, ensureImportedImage, removeContainer, type ContainerEngine } from '../container-common.ts';
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

export function createPodmanCheckpoint(variant: string | null = null): CheckpointMechanism {
  const podman = createPodmanExecutor(variant);
  let engine: ContainerEngine | null = null;
  let imageTag: string | null = null;
  let criu: CriuProbe | null = null;
  const resources = new Map<string, TrialResources>();
  const sandboxes = new Map<string, ContainerSandbox>();
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
      await podmanRun([
        'create', '--name', name,
        '--label', `${RUN_LABEL}=${trial.run.runId}`, '--label', `sandbench.trial_id=${trial.trialId}`,
        '--runtime', 'runc', '--network', 'none', '--pull', 'never',
        ...CONTAINER_ULIMITS.flatMap((limit) => ['--ulimit', limit]),
        '--workdir', '/workspace',
        ...Object.entries(command.env).flatMap(([key, value]) => ['--env', `${key}=${value}`]),
        tag, ...command.argv,
      ], 'create');
      await podmanRun(['cp', `${trial.baseline}/.`, `${name}:/workspace/`], 'cp');
      await podmanRun(['start', name], 'start');
      const sandbox = await connect(trial, name, 'parent');
      return { ...sandbox, internal: name };
    },
    quiesce: (parent) => relays.quiesce(parent),
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      const file = exportOf(trial);
      resourcesOf(trial).add('tempdir', file, () => rmSync(file, { force: true }));
      await podmanRun(['container', 'checkpoint', '--export', file, String(parent.internal)], 'container checkpoint');
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
      await podmanRun(['container', 'restore', '--import', exportOf(trial), '--name', name], 'container restore');
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
    },
    async discard(trial) {
      const tracked = resources.get(trial.trialId);
      resources.delete(trial.trialId);
      for (const key of [...sandboxes.keys()].filter((k) => k.startsWith(`${trial.trialId}/`))) sandboxes.delete(key);
      const errors = tracked ? await tracked.releaseAll() : [];
      rmSync(trial.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      if (errors.length > 0) throw new Error(`podman checkpoint cleanup: ${errors.join('; ')}`);
    },
    async teardown() {},
  };
}

