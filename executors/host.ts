/**
 * `host`: the task as a plain child process of the harness, in a per-trial copy of the workspace.
 * No isolation at all — it is the floor every other backend's overhead is measured against.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import type { CandidateFiles, ProbeResult, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding, ExecutorImplementation } from '../harness/contracts/executor.ts';
import { SANDBOX_PATH } from './launch-prefix.ts';
import { launchControls } from './launch/launch-controls.ts';
import { rewriteTargets, serviceEnv, validateExtras } from './sandbox-extras.ts';
import { startTrial } from './spawn-trial.ts';
import { copyWorkspace, diffWorkspaces, readCandidate } from './workspace-diff.ts';
import type { ArmBuild } from '../harness/spec/arm-build.ts';
import { buildBinaryDetails } from '../harness/provenance/build-identity.ts';

export function createHostExecutor(variant: string | null = null, build?: ArmBuild): ExecutorImplementation {
  const workspaceOf = (trial: TrialContext) => join(trial.trialDir, 'workspace');
  return {
    backend: 'host',
    variant,
    async probe(): Promise<ProbeResult> {
      const { stdout } = await execa('uname', ['-sr']);
      return { backend: 'host', available: true, version: stdout.trim(), details: { shell: '/bin/sh', ...(await buildBinaryDetails(build)) } };
    },
    async prepare() {},
    async stageWorkspace(trial): Promise<WorkspaceBinding> {
      await copyWorkspace(trial.baselineWorkspace, workspaceOf(trial));
      return { hostPath: workspaceOf(trial), claimsStaging: false };
    },
    async launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial> {
      validateExtras(task);
      // No mount namespace: mount targets are rewritten to their host sources; the service is
      // reached directly (its TCP listener if it has one, else its socket path).
      const mounts = task.mounts ?? [];
      const service = task.service
        ? serviceEnv(task.service, task.service.tcp ? { url: `http://${task.service.tcp.host}:${task.service.tcp.port}` } : { socket: task.service.socketPath })
        : {};
      const env = Object.fromEntries(Object.entries({ PATH: SANDBOX_PATH, HOME: '/tmp', LANG: 'C.UTF-8', ...task.env, ...service }).map(([key, value]) => [key, rewriteTargets(value, mounts)]));
      return startTrial({
        // build.wrapper (the arm's launcher/shim) runs the task: `<wrapper> argv...`, inside the timing.
        argv: [...(build?.wrapper ? [build.wrapper] : []), ...task.argv.map((word) => rewriteTargets(word, mounts))],
        controls: launchControls(trial),
        env,
        clearEnv: true,
        cwd: workspaceOf(trial),
        stdin: task.stdin,
        timeoutMs: trial.timeoutMs,
        ...(task.primeRuns ? { primeRuns: task.primeRuns } : {}),
      });
    },
    async collect(trial, binding): Promise<CandidateFiles> {
      return {
        changed: await diffWorkspaces(trial.baselineWorkspace, binding.hostPath),
        read: (relativePath) => readCandidate(join(binding.hostPath, relativePath)),
        facts: {},
      };
    },
    async finishTrial() {},
    async teardown() {},
  };
}
