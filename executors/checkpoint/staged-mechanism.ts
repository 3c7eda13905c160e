/**
 * `staged` checkpoint (files only): the parent runs in the staged sandbox (overlay lower = host
 * baseline, upper = its stage). Checkpoint = stop the parent and rename its upper directory into a
 * frozen layer; overlayfs never writes a lowerdir, so the layer is read-only from then on. Child i
 * gets an overlay with lower = [frozen, baseline] and its own empty upper, and a fresh state process.
 * It honours MechanismTrial.attach: the same bwrap mounts, service socket and cgroup entry as the
 * staged executor's launch, so a child can run a rollout attempt.
 */
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { ProbeResult, RunContext, TrialContext } from '../../harness/contracts/executor.ts';
import { createStagedExecutor, stagedLaunchArgv } from '../staged.ts';
import { filesOnlyLifecycle, frozenOf, parentOf, sandboxOf, stopParent, treeBytes } from './files-only.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { spawnStateProcess, type StateProcess } from './state-process.ts';


/** A TrialContext for stagedLaunchArgv: its lowerdir is the given overlay lower list. */
function stageContext(trial: MechanismTrial, dir: string, lower: string): TrialContext {
  for (const sub of ['upper', 'work', 'merged']) mkdirSync(join(dir, sub), { recursive: true });
  return { run: trial.run, trialId: trial.trialId, baselineWorkspace: lower, trialDir: dir, timeoutMs: trial.timeoutMs, controls: { cpus: null, memoryMiB: null }, budget: null };
}

export function createStagedCheckpoint(variant: string | null = null): CheckpointMechanism {
  const executor = createStagedExecutor(variant);
  let rootfs: string | null = null;
  const lifecycle = filesOnlyLifecycle('staged');
  const { resourcesOf } = lifecycle;

  const launch = (trial: MechanismTrial, dir: string, lower: string, id: string): { sandbox: Sandbox; process: StateProcess } => {
    if (!rootfs) throw new Error('staged checkpoint: prepare() was not called');
    const command = trial.program.stdio('/workspace');
    const context = stageContext(trial, dir, lower);
    const process = spawnStateProcess({
      runId: trial.run.runId,
      // attach (mechanism.ts): the rollout's mounts and model-service socket bound in, its cgroup entered by the spawn path
      argv: stagedLaunchArgv(rootfs, context, { argv: command.argv, env: command.env, stdin: 'pipe', mounts: trial.attach?.mounts ?? [], ...(trial.attach?.service ? { service: trial.attach.service } : {}) }),
      ...(trial.attach?.budget ? { controls: { cpus: null, budget: trial.attach.budget } } : {}),
      env: {},
      timeoutMs: trial.timeoutMs,
      prefix: trial.program.answerPrefix,
      describe: `staged ${id}`,
    });
    resourcesOf(trial).add('process', `staged ${id}`, () => process.running.kill('cleanup'));
    return { sandbox: sandboxOf(id, process, { stage_upper: join(dir, 'upper'), lower }), process };
  };

  return {
    backend: 'staged',
    variant,
    preserves: 'files',
    attachments: 'honoured',
    probe: (): Promise<ProbeResult> => executor.probe(),
    async prepare(run: RunContext) {
      rootfs = run.image.rootfsDir;
    },
    async startParent(trial): Promise<ParentSandbox> {
      const { sandbox, process } = launch(trial, join(trial.dir, 'parent'), trial.baseline, 'parent');
      return parentOf(sandbox.id, process, sandbox.facts);
    },
    async quiesce(parent) {
      await parent.channel.request({ op: 'sync' });
    },
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      await stopParent(parent);
      renameSync(join(trial.dir, 'parent', 'upper'), frozenOf(trial));
      return { diskBytes: await treeBytes(frozenOf(trial)), memoryBytes: 0, parentPaused: true, facts: { frozen_layer: frozenOf(trial), parent_after: 'stopped (files frozen; process not kept)' } };
    },
    async restore(trial, _image, index): Promise<Sandbox> {
      return launch(trial, join(trial.dir, `child-${index}`), `${frozenOf(trial)}:${trial.baseline}`, `child-${index}`).sandbox;
    },
    frozenDigest: lifecycle.frozenDigest,
    destroy: lifecycle.destroy,
    discard: lifecycle.discard,
    teardown: lifecycle.teardown,
  };
}
