/**
 * `pvisor` checkpoint. Variant null/`workspace` (files only): the parent job is `pvisor spawn` of the
 * state program over the baseline (pVisor stages its writes); checkpoint = end the job (its process
 * is not kept) and `pvisor checkpoint create <stage>`; child i = `pvisor fork <stage> --checkpoint ID
 * --stage <own> --state workspace -- <state program>`. Variant `execution` continues a VM job's
 * saved CPU/RAM state and needs pVisor's VM executor, i.e. working KVM.
 * pVisor's process executor runs the host's root filesystem, so the host's python3 runs the program.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import type { ProbeResult } from '../../harness/contracts/executor.ts';
import { kvmUsable } from '../../harness/provenance/host-facts.ts';
import { createPvisorExecutor } from '../pvisor.ts';
import { createQemuMicrovmExecutor } from '../qemu-microvm.ts';
import { treeDigest } from '../workspace-diff.ts';
import { parentOf, sandboxOf, stopParent, treeBytes } from './files-only.ts';
import { HOST_PYTHON } from './host-mechanism.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { spawnStateProcess, type StateProcess } from './state-process.ts';
import { TrialResources } from './tracked.ts';

const CheckpointJson = z.object({ checkpoint: z.object({ checkpoint_id: z.string(), upper_snapshot: z.string(), preimages_snapshot: z.string().optional() }) });

/** The JSON object in `pvisor checkpoint create --json` stdout (startup log lines go to stderr). */
export function parseCheckpointJson(stdout: string): z.infer<typeof CheckpointJson> {
  const start = stdout.indexOf('{');
  if (start < 0) throw new Error(`pvisor checkpoint create printed no JSON: ${stdout.slice(0, 200)}`);
  return CheckpointJson.parse(JSON.parse(stdout.slice(start)));
}

/** The `Error: ...` line of pVisor's stderr (startup logs and a backtrace surround it). */
export function pvisorError(stderr: string): string {
  return stderr.split('\n').find((line) => line.startsWith('Error:'))?.trim() ?? stderr.trim().split('\n').filter((line) => !/^\s*\d+: <unknown>$/.test(line)).slice(-2).join(' | ');
}

export function createPvisorCheckpoint(variant: string | null = null): CheckpointMechanism {
  const executor = createPvisorExecutor(null);
  const execution = variant === 'execution';
  const resources = new Map<string, TrialResources>();
  const images = new Map<string, z.infer<typeof CheckpointJson>['checkpoint']>();
  const queues = new Map<string, Promise<void>>();
  const resourcesOf = (trial: MechanismTrial) => {
    if (!resources.has(trial.trialId)) resources.set(trial.trialId, new TrialResources(trial.run.cleanup));
    return resources.get(trial.trialId)!;
  };
  const parentStage = (trial: MechanismTrial) => join(trial.dir, 'parent-stage');
  const launch = (trial: MechanismTrial, argv: string[], id: string): StateProcess => {
    // Relative paths: pVisor shows the workspace at its stage's merged dir (the job's cwd), not at the baseline path.
    const command = trial.program.stdio('.', HOST_PYTHON);
    const process = spawnStateProcess({
      runId: trial.run.runId,
      argv: [...argv, '--', ...command.argv],
      env: command.env,
      cwd: trial.baseline,
      timeoutMs: trial.timeoutMs,
      prefix: trial.program.answerPrefix,
      describe: `pvisor ${id}`,
    });
    resourcesOf(trial).add('process', `pvisor ${id}`, () => process.running.kill('cleanup'));
    return process;
  };

  return {
    backend: 'pvisor',
    variant,
    preserves: execution ? 'files+process' : 'files',
    async probe(): Promise<ProbeResult> {
      const base = await executor.probe();
      if (!base.available) return base;
      if (execution) {
        if (!kvmUsable()) return { ...base, available: false, reason: 'pvisor fork --state execution continues a VM job\'s saved CPU/RAM state; pVisor\'s VM executor needs KVM, which this machine does not have', fix: 'run on a host with working KVM' };
        // /dev/kvm may open and still hang guests (it does here): trust the qemu probe's boot test.
        const qemu = await createQemuMicrovmExecutor(null).probe();
        if (qemu.details.accelerator !== 'kvm') return { ...base, available: false, reason: `pvisor fork --state execution needs pVisor's VM executor, i.e. working KVM; here: ${qemu.details.accelerator_reason ?? 'KVM unusable'}`, fix: 'run on a host with working KVM' };
        return { ...base, available: false, reason: 'pvisor --state execution is not driven by this build (only reachable with KVM, never tested here)', fix: 'extend executors/checkpoint/pvisor-mechanism.ts on a KVM host' };
      }
      return { ...base, details: { ...base.details, state: 'workspace (files only)' } };
    },
    async prepare() {},
    async startParent(trial): Promise<ParentSandbox> {
      const argv = ['pvisor', 'spawn', '--no-agent-defaults', '--overlaynet', 'off', '--stdio', 'inherit', '--timeout', `${Math.ceil(trial.timeoutMs / 1000) + 5}s`, '--stage', parentStage(trial)];
      return parentOf('parent', launch(trial, argv, 'parent'), { stage: parentStage(trial) });
    },
    async quiesce(parent) {
      await parent.channel.request({ op: 'sync' });
    },
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      await stopParent(parent);
      // The ended job's owner may hold the Job for a while ("Job operation already in progress",
      // "Job owner still holds stage", "EXECUTION_UNKNOWN ... no confirmed stopped Attempt"): retry for up to 20 s.
      let result = await execa('pvisor', ['checkpoint', 'create', parentStage(trial), '--json'], { reject: false, timeout: trial.timeoutMs });
      for (let attempt = 0; attempt < 400 && result.exitCode !== 0 && /already in progress|still holds stage|EXECUTION_UNKNOWN/.test(result.stderr); attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        result = await execa('pvisor', ['checkpoint', 'create', parentStage(trial), '--json'], { reject: false, timeout: trial.timeoutMs });
      }
      if (result.exitCode !== 0) throw new Error(`pvisor checkpoint create: ${pvisorError(result.stderr)}`);
      const checkpoint = parseCheckpointJson(result.stdout).checkpoint;
      images.set(trial.trialId, checkpoint);
      return { diskBytes: await treeBytes(checkpoint.upper_snapshot), memoryBytes: 0, parentPaused: true, facts: { checkpoint_id: checkpoint.checkpoint_id, parent_after: 'job ended (files frozen; process not kept)' } };
    },
    async restore(trial, _image, index): Promise<Sandbox> {
      const checkpoint = images.get(trial.trialId);
      if (!checkpoint) throw new Error('pvisor: restore before checkpoint');
      const stage = join(trial.dir, `child-${index}-stage`);
      const argv = ['pvisor', 'fork', parentStage(trial), '--checkpoint', checkpoint.checkpoint_id, '--state', 'workspace', '--stage', stage];
      // pVisor takes a lock on the source Job per fork ("Job operation already in progress", os error
      // 11, when two forks start together), so forks of one checkpoint start one after another: each
      // waits until the previous child answered (or died).
      const previous = queues.get(trial.trialId) ?? Promise.resolve();
      let done!: () => void;
      queues.set(trial.trialId, new Promise<void>((resolve) => (done = resolve)));
      await previous;
      const startedNs = process.hrtime.bigint();
      const sandbox = sandboxOf(`child-${index}`, launch(trial, argv, `child-${index}`), { stage, forks: 'serialized (pVisor job lock)' });
      void sandbox.channel.ready.then(done, done);
      return { ...sandbox, startedNs };
    },
    async frozenDigest(trial) {
      const checkpoint = images.get(trial.trialId);
      return checkpoint ? treeDigest(checkpoint.upper_snapshot) : null;
    },
    async destroy(_trial, sandbox) {
      await sandbox.channel.close();
    },
    async discard(trial) {
      const tracked = resources.get(trial.trialId);
      resources.delete(trial.trialId);
      images.delete(trial.trialId);
      queues.delete(trial.trialId);
      const errors = tracked ? await tracked.releaseAll() : [];
      rmSync(trial.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      if (errors.length > 0) throw new Error(`pvisor checkpoint cleanup: ${errors.join('; ')}`);
    },
    async teardown() {},
  };
}
