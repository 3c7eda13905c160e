/**
 * `podman`: the task image imported into Podman's default store, one `podman run --rm` per trial
 * with runc, no network and explicit rlimits (backend-notes: Podman). The workspace is a per-trial
 * host copy bind-mounted writable: Podman writes through, which the results report as such.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import type { ProbeResult } from '../harness/contracts/executor.ts';
import type { ArmBuild } from '../harness/spec/arm-build.ts';
import { buildBinaryDetails } from '../harness/provenance/build-identity.ts';
import { cgroupMode, CONTAINER_ULIMITS, createContainerExecutor, engineExec, firstLine, RUNTIME_MESSAGE_LINES, type ContainerEngine, type ContainerExecutor } from './container-common.ts';

export const PODMAN: ContainerEngine = { kind: 'podman', cli: 'podman', globalArgs: [], env: {} };

const podmanInfoSchema = z.object({
  host: z.object({
    ociRuntime: z.object({ name: z.string(), version: z.string().optional() }),
    conmon: z.object({ version: z.string().optional() }),
    cgroupVersion: z.string(),
    cgroupManager: z.string(),
  }),
  store: z.object({ graphRoot: z.string(), graphDriverName: z.string() }),
  version: z.object({ Version: z.string() }),
});

/** Hard limit of one resource from /proc/self/limits (e.g. "Max open files"), as text. */
function hardLimit(resource: string): string {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith(resource));
  return line?.slice(resource.length).trim().split(/\s+/)[1] ?? 'unknown';
}

/** True when this process may raise rlimits (CAP_SYS_RESOURCE, capability bit 24). */
function canRaiseRlimits(): boolean {
  const capEff = /^CapEff:\s+([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return capEff !== undefined && (BigInt(`0x${capEff}`) & (1n << 24n)) !== 0n;
}

function rlimitFact(): string {
  const passed = `--ulimit ${CONTAINER_ULIMITS.join(' --ulimit ')}`;
  if (canRaiseRlimits()) return `${passed} (the same limits on every container backend)`;
  return `no CAP_SYS_RESOURCE, hard nofile ${hardLimit('Max open files')}: engine default rlimits cannot be set here ("error setting rlimit type 7"), so ${passed} is passed`;
}

const INFO_TIMEOUT_MS = 60_000;

/**
 * Why `podman info` gave no usable answer, or null. Podman traps the SIGTERM of a timeout and exits 0
 * with no output, so the exit code alone passes a hung podman. A hang here has been a libpod lock held by
 * a podman client that was killed mid-create (an OOM-killed `podman run` charged to a density budget).
 */
export function podmanInfoFailure(result: { timedOut?: boolean; exitCode?: number; stdout: string; stderr: string }): { reason: string; fix: string } | null {
  if (result.timedOut) {
    return {
      reason: `podman info did not answer within ${INFO_TIMEOUT_MS / 1000} s (a libpod lock held by a killed podman process?)`,
      fix: 'check `timeout 20 podman ps -a`; if it hangs too, stop every podman process and run `podman system renumber`, then remove leftover sandbench-* containers',
    };
  }
  if (result.exitCode !== 0) return { reason: `podman info failed: ${result.stderr.trim().split('\n')[0]}`, fix: 'run `podman info` and fix its storage/runtime configuration' };
  if (!result.stdout.trim()) return { reason: 'podman info exited 0 with no output', fix: 'run `podman info --format json` by hand and fix what it reports' };
  return null;
}

async function probePodman(): Promise<ProbeResult> {
  const version = await firstLine(['podman', '--version']);
  if (!version) {
    return { backend: 'podman', available: false, version: null, details: {}, reason: 'podman is not installed', fix: 'apt-get install podman runc' };
  }
  const runc = await firstLine(['runc', '--version']);
  const crun = await firstLine(['crun', '--version']);
  const mode = cgroupMode();
  const details: Record<string, string> = {
    runc: runc ?? 'not installed',
    crun: crun ?? 'not installed',
    cgroup_mode: mode,
    runtime_used: 'runc (--runtime runc)',
    rlimits: rlimitFact(),
  };
  const infoResult = await execa('podman', ['info', '--format', 'json'], { reject: false, timeout: INFO_TIMEOUT_MS });
  const infoFailure = podmanInfoFailure(infoResult);
  if (infoFailure) return { backend: 'podman', available: false, version, details, ...infoFailure };
  const info = podmanInfoSchema.parse(JSON.parse(infoResult.stdout));
  details.conmon = info.host.conmon.version ?? 'unknown';
  details.default_runtime = info.host.ociRuntime.name;
  details.cgroup_manager = info.host.cgroupManager;
  details.storage = `${info.store.graphDriverName} at ${info.store.graphRoot}`;
  if (info.host.ociRuntime.name === 'crun' && mode === 'v1-hybrid') {
    details.runtime_note = 'default runtime crun refuses cgroup v1 hybrid ("cgroups in hybrid mode not supported"); --runtime runc is used';
  }
  if (!runc) {
    return {
      backend: 'podman',
      available: false,
      version,
      details,
      reason: mode === 'v1-hybrid' ? 'runc is missing and crun refuses cgroup v1 hybrid mode' : 'runc is missing (the adapter runs --runtime runc on every host for comparability)',
      fix: 'apt-get install runc',
    };
  }
  return { backend: 'podman', available: true, version: `podman ${info.version.Version}`, details };
}

/**
 * A real tiny container start with `runtime` (the arm's build.runtime), before any trial, so a
 * runtime that cannot start a container here is named with its own message instead of failing
 * every trial: podman's `--rootfs` on a read-only root holding one static busybox as /bin/true, no
 * network, the trials' own cgroup manager and rlimits. `skipped` when the host has no static busybox.
 */
export async function podmanStartCheck(runtime: string, busybox = '/bin/busybox'): Promise<{ failure: string | null; skipped?: string }> {
  if (!existsSync(busybox)) return { failure: null, skipped: `no ${busybox} to build a start-check root from` };
  const root = mkdtempSync(join(tmpdir(), 'sandbench-start-check-'));
  try {
    mkdirSync(join(root, 'bin'));
    copyFileSync(busybox, join(root, 'bin', 'true'));
    const args = ['--cgroup-manager', 'cgroupfs', 'run', '--rm', '--network', 'none', '--runtime', runtime, ...CONTAINER_ULIMITS.flatMap((limit) => ['--ulimit', limit]), '--read-only', '--rootfs', root, '/bin/true'];
    const result = await engineExec(PODMAN, args, 60_000);
    if (result.exitCode === 0) return { failure: null };
    const said = `${result.stderr}\n${result.stdout}`.split('\n').map((line) => line.trim()).filter(Boolean);
    return { failure: `\`podman run --runtime ${runtime}\` exited ${result.exitCode}: ${said.slice(-RUNTIME_MESSAGE_LINES - 1).join(' | ') || '(no message)'}` };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The probe plus, for an arm with its own build.runtime, that runtime's identity and a real start. */
async function probeWithBuild(build: ArmBuild | undefined): Promise<ProbeResult> {
  const result = await probePodman();
  if (!result.available || !build) return result;
  const details = { ...result.details, ...(await buildBinaryDetails(build)) };
  if (!build.runtime) return { ...result, details };
  const check = await podmanStartCheck(build.runtime);
  if (check.skipped) return { ...result, details: { ...details, start_check: `skipped: ${check.skipped}` } };
  if (check.failure === null) return { ...result, details: { ...details, start_check: 'a container started with this runtime' } };
  return {
    ...result,
    available: false,
    details,
    reason: `runtime ${build.runtime} cannot start a container here: ${check.failure}`,
    fix: 'fix or replace the arm\'s build.runtime (docs/backends.md, Recipes), or pass --keep-going to record the arm as skipped',
    startFailed: true,
  };
}

export function createPodmanExecutor(variant: string | null = null, build?: ArmBuild): ContainerExecutor {
  return createContainerExecutor({
    backend: 'podman',
    variant,
    // The arm's build.runtime replaces runc for this arm only; its path, sha256 and version join the probe as build_* details.
    probe: () => probeWithBuild(build),
    runtime: build?.runtime,
    // Podman is daemonless: nothing to start or stop.
    start: async () => PODMAN,
    stop: async () => undefined,
  });
}
