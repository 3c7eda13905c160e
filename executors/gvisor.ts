/**
 * `gvisor`: gVisor's runsc run directly on an OCI bundle made from the task image, no daemon, as
 * hosted agent sandboxes use it. One `runsc run` per trial, spawned by the launcher (so its stamp,
 * CPU pinning and budget cgroups apply to runsc, and the sandbox's sentry and gofer, runsc's
 * children, inherit them).
 * - Root: the task image's rootfs directory, read-only.
 * - Workspace: an overlayfs mounted on the host in stageWorkspace (outside timing; lower = the
 *   baseline, upper/work under the trial dir) and bound read-write at /workspace; runsc never sees
 *   the baseline itself, and the upper layer is the candidate files.
 * - Network: `--network=none` (loopback only); the one service socket is bound in and reached with
 *   `--host-uds=open`.
 * - Platform: a recorded control (runsc/platform details): ptrace by default; the arm's variant or
 *   SANDBENCH_GVISOR_PLATFORM picks another the binary accepts (`runsc help platforms`).
 * - Memory: without a shared budget, a per-trial cgroup `sandbench-<run>-<trial>` that runsc makes
 *   and `runsc delete` removes; otherwise `--ignore-cgroups`, so the sandbox stays in the cgroups the
 *   launcher put runsc in (a density budget holds it).
 * State: runsc's own root `<stateDir>/runsc/sandbench-<runId>`; containers named
 * `sandbench-<runId>-<trial>` (the descriptor's leftover finder deletes those of dead runs).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ResourceHandle } from '../harness/run/cleanup-registry.ts';
import type { CandidateFiles, ExecutorImplementation, ExitInfo, OutputLine, ProbeResult, RunContext, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding } from '../harness/contracts/executor.ts';
import type { ArmBuild } from '../harness/spec/arm-build.ts';
import { buildBinaryDetails, fileSha256 } from '../harness/provenance/build-identity.ts';
import { SANDBOX_PATH } from './launch-prefix.ts';
import { launchControls } from './launch/launch-controls.ts';
import { listUpperLayer, overlayStageDirs } from './overlay-upper.ts';
import { validateExtras } from './sandbox-extras.ts';
import { startTrial } from './spawn-trial.ts';
import { readCandidate } from './workspace-diff.ts';
import { writeBundle } from './gvisor/oci-config.ts';
import { acceptedPlatforms, choosePlatform, containerName, deleteContainer, globalFlags, listContainers, PLATFORM_ENV, resolveBinary, runscRoot } from './gvisor/runsc.ts';
import { isMounted, mountOverlay, unmount } from './gvisor/overlay-mount.ts';

const SMOKE_TIMEOUT_MS = 30_000;


/** Why a runsc run failed before the task ran (runsc's own error on stderr), or undefined. */
export function runscSetupFailure(info: ExitInfo, lines: readonly OutputLine[]): ExitInfo['infraFailure'] {
  if (info.timedOut || info.exitCode !== 128) return undefined;
  const error = lines.find((line) => line.stream === 'stderr' && /^(running container|creating container|starting container|creating sandbox|loading container|error)\b/i.test(line.text));
  return error ? { category: 'setup_failed', reason: `runsc: ${error.text.trim()}` } : undefined;
}

/** A `runsc do` smoke run in a throwaway root; null when it printed what it was asked to. */
async function smokeRun(binary: string, platform: string): Promise<string | null> {
  const root = mkdtempSync(join(tmpdir(), 'runsc-probe-'));
  try {
    const result = await execa(binary, [...globalFlags(root, platform, { ignoreCgroups: true }), 'do', '/bin/echo', 'sandbench-gvisor-probe'], { reject: false, timeout: SMOKE_TIMEOUT_MS, killSignal: 'SIGKILL', stdin: 'ignore' });
    if (result.timedOut) return `runsc --platform=${platform} do did not finish within ${SMOKE_TIMEOUT_MS / 1000} s (a guest hang, e.g. KVM)`;
    if (result.exitCode !== 0 || !result.stdout.includes('sandbench-gvisor-probe')) {
      return `runsc --platform=${platform} do failed (exit ${result.exitCode}): ${(result.stderr || result.stdout).trim().split('\n').pop() ?? ''}`;
    }
    return null;
  } finally {
    for (const id of await listContainers(binary, root)) await deleteContainer(binary, root, id).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
}

export function createGvisorExecutor(variant: string | null = null, build?: ArmBuild): ExecutorImplementation {
  const binaryName = build?.runtime ?? 'runsc';
  const choice = choosePlatform(variant);
  let binary: string | null = null;
  let rootfsDir: string | null = null;
  let root: string | null = null;
  let rootHandle: ResourceHandle | null = null;
  let run: RunContext | null = null;
  // Per trial (by trial dir): the overlay mount and the container, each registered with the run's cleanup.
  const mounts = new Map<string, ResourceHandle>();
  const containers = new Map<string, ResourceHandle>();

  const unavailable = (reason: string, fix: string, version: string | null = null, details: Record<string, string> = {}): ProbeResult => ({ backend: 'gvisor', available: false, version, details, reason, fix });

  return {
    backend: 'gvisor',
    variant,
    async probe(): Promise<ProbeResult> {
      const path = resolveBinary(binaryName);
      if (!path) return unavailable(build?.runtime ? `build.runtime ${binaryName} not found` : 'runsc is not installed', build?.runtime ? 'point build.runtime at a runsc binary' : 'apt-get install -y runsc');
      const versionResult = await execa(path, ['--version'], { reject: false, timeout: 10_000, stdin: 'ignore' });
      const version = versionResult.exitCode === 0 ? versionResult.stdout.trim().split('\n')[0] ?? null : null;
      if (!version) return unavailable(`${path} --version failed: ${(versionResult.stderr || versionResult.stdout).trim().split('\n')[0] ?? ''}`, 'reinstall runsc (apt-get install -y runsc)');
      const platforms = await acceptedPlatforms(path);
      const details: Record<string, string> = {
        runsc: path,
        runsc_sha256: `sha256:${fileSha256(path)}`,
        runsc_version: version,
        platform: choice.platform,
        platform_source: choice.source === 'env' ? PLATFORM_ENV : choice.source,
        platforms_accepted: platforms.join(','),
        network: 'none (--network=none; one host Unix socket with --host-uds=open when a kind gives a service)',
        workspace: 'host overlayfs (lower = baseline) bound at /workspace',
        ...(await buildBinaryDetails(build)),
      };
      if (!platforms.includes(choice.platform)) {
        return unavailable(`runsc does not accept platform ${choice.platform} (it lists: ${platforms.join(', ') || 'none'})`, `choose one of ${platforms.join(', ')} (arm variant or ${PLATFORM_ENV})`, version, details);
      }
      if (process.getuid?.() !== 0) return unavailable('runsc run --rootless=false needs root', 'run the harness as root', version, details);
      const smoke = await smokeRun(path, choice.platform);
      if (smoke) return unavailable(smoke, choice.platform === 'ptrace' ? 'check `runsc --platform=ptrace --network=none do /bin/true` by hand' : 'use --platform ptrace (arm variant or SANDBENCH_GVISOR_PLATFORM=ptrace)', version, details);
      binary = path;
      return { backend: 'gvisor', available: true, version, details };
    },
    async prepare(context: RunContext) {
      run = context;
      binary ??= resolveBinary(binaryName);
      if (!binary) throw new Error(`gvisor executor: ${binaryName} not found`);
      rootfsDir = context.image.rootfsDir;
      const runRoot = runscRoot(context.stateDir, context.runId);
      mkdirSync(runRoot, { recursive: true });
      root = runRoot;
      const runsc = binary;
      rootHandle = context.cleanup.register('tempdir', runRoot, async () => {
        for (const id of await listContainers(runsc, runRoot)) await deleteContainer(runsc, runRoot, id);
        rmSync(runRoot, { recursive: true, force: true });
      });
    },
    async stageWorkspace(trial): Promise<WorkspaceBinding> {
      const dirs = overlayStageDirs(trial);
      for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
      await mountOverlay([trial.baselineWorkspace], dirs.upper, dirs.work, dirs.merged);
      mounts.set(trial.trialDir, trial.run.cleanup.register('mount', dirs.merged, () => unmount(dirs.merged)));
      return { hostPath: trial.baselineWorkspace, claimsStaging: true };
    },
    async launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial> {
      if (!rootfsDir || !root || !binary) throw new Error('gvisor executor: prepare() was not called');
      validateExtras(task);
      const dirs = overlayStageDirs(trial);
      if (!isMounted(dirs.merged)) throw new Error(`gvisor executor: ${dirs.merged} is not mounted (stageWorkspace() was not called)`);
      const name = containerName(trial.run.runId, trial.trialId);
      // A shared budget holds the memory; otherwise runsc makes (and `delete` removes) the trial's own cgroup.
      const cgroupsPath = trial.controls.memoryMiB !== null && !trial.budget ? `/${name}` : null;
      const bundle = writeBundle(join(trial.trialDir, 'bundle'), { rootfsDir, workspaceDir: dirs.merged, task, controls: trial.controls, cgroupsPath });
      const runsc = binary;
      const stateRoot = root;
      containers.set(trial.trialDir, trial.run.cleanup.register('container', `runsc/${name}`, () => deleteContainer(runsc, stateRoot, name)));
      return startTrial({
        argv: [runsc, ...globalFlags(stateRoot, choice.platform, { hostUds: Boolean(task.service), ignoreCgroups: cgroupsPath === null }), 'run', '--bundle', bundle, name],
        controls: launchControls(trial),
        clearEnv: true,
        env: { PATH: SANDBOX_PATH },
        stdin: task.stdin,
        timeoutMs: trial.timeoutMs,
        // runsc run's sandbox runs in its own session: delete --force takes it and its state down.
        onKill: () => deleteContainer(runsc, stateRoot, name),
        classifyExit: runscSetupFailure,
      });
    },
    async collect(trial): Promise<CandidateFiles> {
      const { upper } = overlayStageDirs(trial);
      const memory = trial.controls.memoryMiB === null ? 'none' : trial.budget ? `budget ${trial.budget.cgroupParent}` : `cgroup /${containerName(trial.run.runId, trial.trialId)}`;
      return {
        changed: listUpperLayer(upper, trial.baselineWorkspace),
        read: (relativePath) => readCandidate(join(upper, relativePath)),
        facts: { stage_upper: upper, gvisor_platform: choice.platform, gvisor_container: containerName(trial.run.runId, trial.trialId), gvisor_memory_limit: memory },
      };
    },
    async finishTrial(trial) {
      const container = containers.get(trial.trialDir);
      containers.delete(trial.trialDir);
      if (container) await trial.run.cleanup.release(container);
      const mount = mounts.get(trial.trialDir);
      mounts.delete(trial.trialDir);
      if (mount) await trial.run.cleanup.release(mount);
      else if (isMounted(overlayStageDirs(trial).merged)) await unmount(overlayStageDirs(trial).merged);
    },
    async teardown() {
      if (run && rootHandle) await run.cleanup.release(rootHandle);
      rootHandle = null;
    },
  };
}

