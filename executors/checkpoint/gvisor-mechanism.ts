/**
 * `gvisor` checkpoint (files + process state): `runsc checkpoint` / `runsc restore`, no daemon.
 * Parent = `runsc run` of the state program (stdio protocol) on a host overlay of the baseline, as
 * the gvisor executor stages a trial. Checkpoint = `runsc checkpoint --image-path D` (the sentry's
 * whole state, the parent stops: paused); the parent's upper is then frozen (renamed, overlayfs never
 * writes a lowerdir). Child i = `runsc restore --image-path D` of the same bundle with /workspace an
 * overlay of lower = [frozen, baseline] and its own upper, so files restore by path to the parent's
 * bytes while each child's writes stay its own; the restored process's stdio is the restore's.
 */
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ProbeResult, RunContext } from '../../harness/contracts/executor.ts';
import { SANDBOX_PATH } from '../launch-prefix.ts';
import { createGvisorExecutor } from '../gvisor.ts';
import { writeBundle } from '../gvisor/oci-config.ts';
import { mountOverlay, unmount } from '../gvisor/overlay-mount.ts';
import { choosePlatform, containerName, deleteContainer, globalFlags, listContainers, resolveBinary, runscRoot } from '../gvisor/runsc.ts';
import { filesOnlyLifecycle, frozenOf, parentOf, sandboxOf, treeBytes } from './files-only.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { spawnStateProcess, type StateProcess } from './state-process.ts';

export function createGvisorCheckpoint(variant: string | null = null): CheckpointMechanism {
  const executor = createGvisorExecutor(variant);
  const platform = choosePlatform(variant).platform;
  let binary: string | null = null;
  let rootfs: string | null = null;
  let root: string | null = null;
  // Per-trial resources, the frozen layer's digest, closing a child and discarding a trial are the
  // same as the files-only mechanisms'; what differs is how a child gets its process state.
  const lifecycle = filesOnlyLifecycle('gvisor');
  const resourcesOf = lifecycle.resourcesOf;
  const imageDir = (trial: MechanismTrial) => join(trial.dir, 'image');
  const ready = () => {
    if (!binary || !rootfs || !root) throw new Error('gvisor checkpoint: prepare() was not called');
    return { binary, rootfs, root };
  };

  /** A staged overlay and an OCI bundle in `<trial.dir>/<role>`, both released by discard(). */
  const stage = async (trial: MechanismTrial, role: string, lowers: readonly string[]): Promise<{ bundle: string; upper: string; name: string }> => {
    const dir = join(trial.dir, role);
    const [upper, work, merged] = ['upper', 'work', 'merged'].map((sub) => join(dir, sub)) as [string, string, string];
    for (const sub of [upper, work, merged]) mkdirSync(sub, { recursive: true });
    await mountOverlay(lowers, upper, work, merged);
    resourcesOf(trial).add('mount', merged, () => unmount(merged));
    const command = trial.program.stdio('/workspace');
    // Parent and children share one config but for the workspace source: a restore must see the mounts it was checkpointed with.
    const bundle = writeBundle(join(dir, 'bundle'), {
      rootfsDir: ready().rootfs,
      workspaceDir: merged,
      task: { argv: command.argv, env: command.env, stdin: 'pipe' },
      controls: { cpus: null, memoryMiB: null },
      cgroupsPath: null,
    });
    return { bundle, upper, name: containerName(trial.run.runId, `${trial.trialId}-${role}`) };
  };

  const launch = (trial: MechanismTrial, name: string, args: string[], role: string): StateProcess => {
    const { binary: runsc, root: stateRoot } = ready();
    resourcesOf(trial).add('container', `runsc/${name}`, () => deleteContainer(runsc, stateRoot, name));
    const process = spawnStateProcess({
      runId: trial.run.runId,
      argv: [runsc, ...globalFlags(stateRoot, platform, { ignoreCgroups: true }), ...args, name],
      env: { PATH: SANDBOX_PATH },
      clearEnv: true,
      timeoutMs: trial.timeoutMs,
      prefix: trial.program.answerPrefix,
      describe: `gvisor ${role}`,
    });
    resourcesOf(trial).add('process', `gvisor ${role}`, () => process.running.kill('cleanup'));
    return process;
  };

  return {
    backend: 'gvisor',
    variant,
    preserves: 'files+process',
    async probe(): Promise<ProbeResult> {
      const base = await executor.probe();
      return base.available ? { ...base, details: { ...base.details, checkpoint: 'runsc checkpoint --image-path / runsc restore (sentry state + frozen overlay upper)' } } : base;
    },
    async prepare(run: RunContext) {
      binary = resolveBinary('runsc');
      if (!binary) throw new Error('gvisor checkpoint: runsc is not installed');
      rootfs = run.image.rootfsDir;
      root = runscRoot(run.stateDir, run.runId);
      mkdirSync(root, { recursive: true });
    },
    async startParent(trial): Promise<ParentSandbox> {
      const { bundle, upper, name } = await stage(trial, 'parent', [trial.baseline]);
      const process = launch(trial, name, ['run', '--bundle', bundle], 'parent');
      return parentOf('parent', process, { container: name, stage_upper: upper, platform });
    },
    async quiesce(parent) {
      await parent.channel.request({ op: 'sync' });
    },
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      const { binary: runsc, root: stateRoot } = ready();
      const name = String(parent.facts.container);
      const process = parent.internal as StateProcess;
      const image = imageDir(trial);
      mkdirSync(image, { recursive: true });
      const result = await execa(runsc, [`--root=${stateRoot}`, 'checkpoint', '--image-path', image, name], { reject: false, timeout: trial.timeoutMs, stdin: 'ignore' });
      if (result.exitCode !== 0) throw new Error(`runsc checkpoint ${name}: ${(result.stderr || result.stdout).trim().split('\n').pop() ?? `exit ${result.exitCode}`}`);
      // The checkpoint stops the sandbox: runsc run exits; then the parent's upper is frozen.
      await process.running.exit;
      await unmount(join(trial.dir, 'parent', 'merged'));
      renameSync(String(parent.facts.stage_upper), frozenOf(trial));
      return {
        diskBytes: await treeBytes(frozenOf(trial)),
        memoryBytes: statSync(join(image, 'checkpoint.img')).size,
        parentPaused: true,
        facts: { image: join(image, 'checkpoint.img'), frozen_layer: frozenOf(trial), platform, parent_after: 'stopped by runsc checkpoint (sandbox exited)' },
      };
    },
    async restore(trial, _image, index): Promise<Sandbox> {
      const role = `child-${index}`;
      const { bundle, upper, name } = await stage(trial, role, [frozenOf(trial), trial.baseline]);
      const process = launch(trial, name, ['restore', '--image-path', imageDir(trial), '--bundle', bundle], role);
      // A restored process does not greet again: its first answer (to a read-only `get`) marks ready.
      void process.channel.request({ op: 'get' }, trial.timeoutMs).catch(() => undefined);
      return sandboxOf(role, process, { container: name, stage_upper: upper, platform });
    },
    frozenDigest: lifecycle.frozenDigest,
    destroy: lifecycle.destroy,
    discard: lifecycle.discard,
    async teardown() {
      // The run's runsc root goes once nothing is left in it (the executor of the same run may share it).
      if (root && binary && (await listContainers(binary, root)).length === 0) rmSync(root, { recursive: true, force: true });
    },
  };
}
