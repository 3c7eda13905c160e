/**
 * `host` checkpoint (files only): the parent's state process runs on the host in a copy of the
 * baseline. Checkpoint = stop it and rename its workspace into the frozen copy; child i gets
 * `cp -a --reflink=auto` of the frozen copy (a reflink where the filesystem has them, else bytes)
 * and a fresh state process. No isolation at all: the floor for the other mechanisms.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ProbeResult } from '../../harness/contracts/executor.ts';
import { SANDBOX_PATH } from '../launch-prefix.ts';
import { copyWorkspace } from '../workspace-diff.ts';
import { filesOnlyLifecycle, frozenOf, parentOf, sandboxOf, stopParent, treeBytes } from './files-only.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { spawnStateProcess, type StateProcess } from './state-process.ts';

/** The host's own interpreter (not a pyenv shim on PATH): the host arm runs host binaries. */
export const HOST_PYTHON = '/usr/bin/python3';


/** Whether `cp --reflink=always` works in `dir` (ext4: no; xfs/btrfs: yes). */
async function reflinkWorks(dir: string): Promise<boolean> {
  const a = join(dir, '.reflink-probe');
  const b = join(dir, '.reflink-probe-copy');
  try {
    await execa('sh', ['-c', `printf x > "$1" && cp --reflink=always "$1" "$2"`, 'sh', a, b]);
    return true;
  } catch {
    return false;
  } finally {
    rmSync(a, { force: true });
    rmSync(b, { force: true });
  }
}

export function createHostCheckpoint(variant: string | null = null): CheckpointMechanism {
  const lifecycle = filesOnlyLifecycle('host');
  const { resourcesOf } = lifecycle;
  const launch = (trial: MechanismTrial, workspace: string, id: string): StateProcess => {
    const command = trial.program.stdio(workspace, HOST_PYTHON);
    const process = spawnStateProcess({
      runId: trial.run.runId,
      argv: command.argv,
      env: { PATH: SANDBOX_PATH, HOME: '/tmp', LANG: 'C.UTF-8', ...command.env },
      clearEnv: true,
      cwd: workspace,
      timeoutMs: trial.timeoutMs,
      prefix: trial.program.answerPrefix,
      describe: `host ${id}`,
    });
    resourcesOf(trial).add('process', `host ${id}`, () => process.running.kill('cleanup'));
    return process;
  };
  let reflink: boolean | null = null;

  return {
    backend: 'host',
    variant,
    preserves: 'files',
    async probe(): Promise<ProbeResult> {
      const version = await execa(HOST_PYTHON, ['--version'], { reject: false });
      if (version.exitCode !== 0) return { backend: 'host', available: false, version: null, details: {}, reason: `${HOST_PYTHON} is missing`, fix: 'apt-get install python3' };
      return { backend: 'host', available: true, version: version.stdout.trim(), details: {} };
    },
    async prepare() {},
    async startParent(trial): Promise<ParentSandbox> {
      const workspace = join(trial.dir, 'parent');
      await copyWorkspace(trial.baseline, workspace);
      reflink ??= await reflinkWorks(trial.dir);
      return parentOf('parent', launch(trial, workspace, 'parent'), { workspace });
    },
    async quiesce(parent) {
      await parent.channel.request({ op: 'sync' });
    },
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      await stopParent(parent);
      renameSync(join(trial.dir, 'parent'), frozenOf(trial));
      return {
        diskBytes: await treeBytes(frozenOf(trial)),
        memoryBytes: 0,
        parentPaused: true,
        facts: { frozen_copy: frozenOf(trial), reflink: reflink === true, parent_after: 'stopped (files frozen; process not kept)' },
      };
    },
    async restore(trial, _image, index): Promise<Sandbox> {
      const workspace = join(trial.dir, `child-${index}`);
      mkdirSync(workspace, { recursive: true });
      await execa('cp', ['-a', '--reflink=auto', `${frozenOf(trial)}/.`, `${workspace}/`]);
      return sandboxOf(`child-${index}`, launch(trial, workspace, `child-${index}`), { workspace });
    },
    frozenDigest: lifecycle.frozenDigest,
    destroy: lifecycle.destroy,
    discard: lifecycle.discard,
    teardown: lifecycle.teardown,
  };
}
