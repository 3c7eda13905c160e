/**
 * `staged`: bubblewrap with the task image as read-only root and an overlayfs copy-on-write
 * workspace (lower = the host baseline, upper = a fresh per-trial stage directory).
 * bubblewrap 0.8 has no overlay flags, so the overlay is mounted by `mount` inside a private mount
 * namespace made by `unshare` just before exec'ing bwrap (backend-notes: "Staged"); the mount
 * vanishes with the namespace and the upper directory stays behind as the candidate files.
 * The launch path is one sh, one mount and bwrap: every extra fork shows up in ready time.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { execa } from 'execa';
import { SANDBOX_MOUNT_ROOT, type CandidateFiles, type ExecutorImplementation, type ProbeResult, type RunContext, type RunningTrial, type TaskCommand, type TrialContext, type WorkspaceBinding } from '../harness/contracts/executor.ts';
import { SANDBOX_PATH } from './launch-prefix.ts';
import { launchControls } from './launch/launch-controls.ts';
import { serviceEnv, serviceSocketTarget, validateExtras } from './sandbox-extras.ts';
import { startTrial } from './spawn-trial.ts';
import { listUpperLayer, overlayStageDirs } from './overlay-upper.ts';
import { readCandidate } from './workspace-diff.ts';
import type { ArmBuild } from '../harness/spec/arm-build.ts';
import { buildBinaryDetails } from '../harness/provenance/build-identity.ts';


/** Quote for the one `sh -c` that mounts the overlay (paths are harness-made, but never trust that). */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

export function stagedLaunchArgv(rootfsDir: string, trial: TrialContext, task: TaskCommand): string[] {
  const dirs = overlayStageDirs(trial);
  const mount = `mount -t overlay overlay -o ${shellQuote(`lowerdir=${trial.baselineWorkspace},upperdir=${dirs.upper},workdir=${dirs.work}`)} ${shellQuote(dirs.merged)}`;
  const service = task.service ? serviceEnv(task.service, { socket: serviceSocketTarget(task.service) }) : {};
  const env = { PATH: SANDBOX_PATH, HOME: '/tmp', LANG: 'C.UTF-8', ...task.env, ...service };
  // Extras: a tmpfs on the image's /run (its root is read-only, so the mount points below
  // SANDBOX_MOUNT_ROOT are made in that tmpfs), the layers read-only, the socket bound in. With a service, bwrap makes its own network
  // namespace because it brings `lo` up (the outer `unshare --net` leaves it down), so an
  // in-sandbox forwarder can listen on 127.0.0.1; still no other interface.
  const extras = [
    ...(task.mounts?.length || task.service ? ['--tmpfs', posix.dirname(SANDBOX_MOUNT_ROOT)] : []),
    ...(task.mounts ?? []).flatMap((mount) => ['--ro-bind', mount.source, mount.target]),
    ...(task.service ? ['--bind', task.service.socketPath, serviceSocketTarget(task.service), '--unshare-net'] : []),
  ];
  const bwrap = [
    'bwrap',
    '--ro-bind', rootfsDir, '/',
    '--bind', dirs.merged, '/workspace',
    '--proc', '/proc',
    '--dev', '/dev',
    '--tmpfs', '/tmp',
    ...extras,
    '--unshare-ipc',
    '--unshare-uts',
    '--hostname', 'sandbench-task',
    '--die-with-parent',
    '--clearenv',
    ...Object.entries(env).flatMap(([key, value]) => ['--setenv', key, value]),
    '--chdir', '/workspace',
    '--',
    ...task.argv,
  ];
  // "$@" carries bwrap's argv untouched; only the mount line is interpreted by sh.
  const script = `${mount} && exec "$@"`;
  // The trial's controls (CPU pinning, budget cgroups) are applied by the spawn path, not by this argv.
  return ['unshare', '--mount', '--pid', '--fork', '--net', '--propagation', 'private', 'sh', '-c', script, 'sandbench-stage', ...bwrap];
}

async function toolVersion(argv: string[]): Promise<string | null> {
  const result = await execa(argv[0]!, argv.slice(1), { reject: false });
  return result.exitCode === 0 ? `${result.stdout}${result.stderr}`.trim().split('\n')[0] ?? null : null;
}

export function createStagedExecutor(variant: string | null = null, build?: ArmBuild): ExecutorImplementation {
  let rootfsDir: string | null = null;
  // build.wrapper runs the whole launch (`<wrapper> unshare ... bwrap ... -- argv`) on the host, inside the timing.
  const wrap = (argv: string[]) => (build?.wrapper ? [build.wrapper, ...argv] : argv);
  return {
    backend: 'staged',
    variant,
    async probe(): Promise<ProbeResult> {
      const bwrap = await toolVersion(['bwrap', '--version']);
      const unshare = await toolVersion(['unshare', '--version']);
      const overlay = existsSync('/proc/filesystems') && readFileSync('/proc/filesystems', 'utf8').includes('overlay');
      const missing = !bwrap ? 'bubblewrap is not installed' : !unshare ? 'unshare (util-linux) is missing' : !overlay ? 'the kernel has no overlayfs' : null;
      if (missing) {
        return { backend: 'staged', available: false, version: null, details: {}, reason: missing, fix: 'apt-get install bubblewrap util-linux; modprobe overlay' };
      }
      const probe = await execa('unshare', ['--mount', '--pid', '--fork', '--net', 'true'], { reject: false });
      if (probe.exitCode !== 0) {
        return { backend: 'staged', available: false, version: bwrap, details: {}, reason: `cannot create mount/pid/net namespaces: ${probe.stderr.trim()}`, fix: 'run as root or enable unprivileged user namespaces' };
      }
      return { backend: 'staged', available: true, version: bwrap, details: { unshare: unshare ?? 'unknown', overlay: 'kernel overlayfs', ...(await buildBinaryDetails(build)) } };
    },
    async prepare(run: RunContext) {
      rootfsDir = run.image.rootfsDir;
    },
    async stageWorkspace(trial): Promise<WorkspaceBinding> {
      const dirs = overlayStageDirs(trial);
      for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
      return { hostPath: trial.baselineWorkspace, claimsStaging: true };
    },
    async launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial> {
      if (!rootfsDir) throw new Error('staged executor: prepare() was not called');
      validateExtras(task);
      return startTrial({ argv: wrap(stagedLaunchArgv(rootfsDir, trial, task)), controls: launchControls(trial), clearEnv: true, env: { PATH: SANDBOX_PATH }, stdin: task.stdin, timeoutMs: trial.timeoutMs });
    },
    async collect(trial): Promise<CandidateFiles> {
      const { upper } = overlayStageDirs(trial);
      return {
        changed: listUpperLayer(upper, trial.baselineWorkspace),
        read: (relativePath) => readCandidate(join(upper, relativePath)),
        facts: { stage_upper: upper },
      };
    },
    async finishTrial() {},
    async teardown() {},
  };
}
