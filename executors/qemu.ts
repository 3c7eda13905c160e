/**
 * Shared launcher of the QEMU executors (qemu-microvm, qemu-q35): the same guest kernel, initramfs
 * and read-only image disk for both machines; per trial a scratch disk (baseline workspace + overlay
 * upper layer) and a task disk. The trial VM is one qemu process spawned by spawnTrial, so timing,
 * line capture, timeout and kill are the same as for every other backend.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ResourceHandle } from '../harness/run/cleanup-registry.ts';
import { stateDir as defaultStateDir } from '../harness/state-dir.ts';
import type { CandidateFiles, ProbeResult, RunContext, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding, ExecutorImplementation } from '../harness/contracts/executor.ts';
import { launchControls } from './launch/launch-controls.ts';
import { spawnTrial, startTrial } from './spawn-trial.ts';
import { cachedVerdict, forcedAccelerator, hostTscKhz, kvmOpenError, storeVerdict, type Accelerator, type AcceleratorVerdict } from './vm/accelerator.ts';
import { classifyExit, exitCodeFromLines } from './vm/console-protocol.ts';
import { withGuestConsole } from './vm/guest-console.ts';
import { ensureGuestKernel, type GuestKernel } from './vm/guest-kernel.ts';
import { ensureInitramfs, type Initramfs } from './vm/initramfs.ts';
import { GUEST_ADDR, GUEST_SERVICE_ADDR, GUEST_SERVICE_PORT, QEMU_BINARY, qemuArgv, type MachineProfile, type VmLaunchSpec } from './vm/qemu-argv.ts';
import { ensureMountDisks } from './vm/mount-disks.ts';
import { serviceEnv, validateExtras } from './sandbox-extras.ts';
import { ensureRootDisk, type RootDisk } from './vm/root-disk.ts';
import { buildScratchDisk, writeTaskDisk } from './vm/trial-disks.ts';
import { extractUpperLayer, listUpperLayer, readCandidate } from './vm/upper-layer.ts';

/** 2 vCPUs for every VM trial (issue 3: "2 vCPU"). */
export const VM_VCPUS = 2;
/** Guest RAM when neither the trial controls nor the run options set it (issue 3: shell tasks). */
export const DEFAULT_VM_MEMORY_MiB = 256;
/**
 * Smallest guest RAM that boots this guest: with 64 MiB the Debian cloud kernel resets before its
 * first console line (measured 2026-11-30, TCG); 96 MiB boots. Below it a launch is refused up front.
 */
export const MIN_VM_MEMORY_MiB = 96;
/** A KVM guest reaches its init in well under a second; 10 s means KVM does not really work. */
const KVM_PROBE_TIMEOUT_MS = 10_000;

interface GuestAssets {
  qemuVersion: string;
  kernel: GuestKernel;
  initramfs: Initramfs;
  verdict: AcceleratorVerdict;
}

interface TrialVm {
  dir: string;
  dirHandle: ResourceHandle;
  scratch: string;
  vmHandle: ResourceHandle | null;
}

export async function qemuVersion(): Promise<string | null> {
  const result = await execa(QEMU_BINARY, ['--version'], { reject: false });
  if (result.exitCode !== 0) return null;
  return /version\s+(\S+)/.exec(result.stdout)?.[1] ?? result.stdout.split('\n')[0]!.trim();
}

async function missingTool(): Promise<{ reason: string; fix: string } | null> {
  const tools: [string[], string][] = [
    [['mkfs.ext4', '-V'], 'e2fsprogs'],
    [['debugfs', '-V'], 'e2fsprogs'],
    [['modinfo', '--version'], 'kmod'],
    [['busybox', '--help'], 'busybox-static'],
    [['apt-get', '--version'], 'apt'],
  ];
  for (const [argv, pkg] of tools) {
    const result = await execa(argv[0]!, argv.slice(1), { reject: false });
    if (result.failed && result.exitCode === undefined) return { reason: `${argv[0]} is not installed`, fix: `apt-get install ${pkg}` };
  }
  return null;
}

/** Boot the probe guest (no disks; init stops after loading modules) under one accelerator. */
async function bootProbe(assets: Omit<GuestAssets, 'verdict'>, profile: MachineProfile, accelerator: Accelerator, timeoutMs: number): Promise<{ ok: boolean; ms: number; detail: string }> {
  const spec: VmLaunchSpec = {
    name: `sandbench-probe-${process.pid}`,
    profile,
    accelerator,
    memoryMiB: DEFAULT_VM_MEMORY_MiB,
    vcpus: VM_VCPUS,
    kernelPath: assets.kernel.vmlinuzPath,
    initrdPath: assets.initramfs.path,
    disks: null,
    tscKhz: hostTscKhz(),
    extraCmdline: ['sandbench.probe=1'],
  };
  const running = spawnTrial({ argv: qemuArgv(spec), stdin: 'none', timeoutMs, exitCodeFromLines, classifyExit });
  const exit = await running.exit;
  const ms = Number(exit.tExitNs - running.tSpawnNs) / 1e6;
  const detail = exit.timedOut ? `no guest userspace within ${timeoutMs / 1000} s` : exit.infraFailure?.reason ?? `exit ${exit.exitCode}`;
  return { ok: exit.exitCode === 0 && !exit.infraFailure, ms, detail };
}

async function resolveAccelerator(stateDir: string, assets: Omit<GuestAssets, 'verdict'>, profile: MachineProfile): Promise<AcceleratorVerdict> {
  const forced = forcedAccelerator();
  if (forced) return { accelerator: forced, reason: `forced by SANDBENCH_VM_ACCEL=${forced}` };
  const openError = kvmOpenError();
  if (openError) return { accelerator: 'tcg', reason: `KVM unusable (${openError}); TCG emulation` };
  const cached = cachedVerdict(stateDir, assets.qemuVersion, assets.kernel.digest);
  if (cached) return cached;
  const probe = await bootProbe(assets, profile, 'kvm', KVM_PROBE_TIMEOUT_MS);
  const verdict: AcceleratorVerdict = probe.ok
    ? { accelerator: 'kvm', reason: `a probe guest booted under KVM in ${probe.ms.toFixed(0)} ms` }
    : { accelerator: 'tcg', reason: `/dev/kvm opens but a probe guest failed under KVM (${probe.detail}; nested virtualization not working?); TCG emulation` };
  storeVerdict(stateDir, assets.qemuVersion, assets.kernel.digest, verdict);
  return verdict;
}

/** Kernel, initramfs and accelerator: shared by probe() and prepare(); fetched/built once and cached. */
async function guestAssets(stateDir: string, profile: MachineProfile, log: (message: string) => void): Promise<GuestAssets> {
  const version = await qemuVersion();
  if (!version) throw new Error(`${QEMU_BINARY} is not installed`);
  const kernel = await ensureGuestKernel(stateDir, log);
  const initramfs = await ensureInitramfs(stateDir, kernel);
  const base = { qemuVersion: version, kernel, initramfs };
  return { ...base, verdict: await resolveAccelerator(stateDir, base, profile) };
}

export interface QemuExecutorOptions {
  backend: 'qemu-microvm' | 'qemu-q35';
  profile: MachineProfile;
  variant: string | null;
}

export function createQemuExecutor(options: QemuExecutorOptions): ExecutorImplementation {
  const { backend, profile, variant } = options;
  let run: RunContext | null = null;
  let assets: GuestAssets | null = null;
  let rootDisk: RootDisk | null = null;
  const trials = new Map<string, TrialVm>();

  const facts = (): Record<string, string> => {
    if (!assets) return {};
    return {
      accelerator: assets.verdict.accelerator,
      machine: profile.machine,
      qemu: assets.qemuVersion,
      kernel_package: `${assets.kernel.packageName} ${assets.kernel.packageVersion}`,
      kernel_digest: assets.kernel.digest,
      initramfs_digest: assets.initramfs.digest,
      ...(rootDisk ? { root_disk_digest: rootDisk.digest } : {}),
    };
  };

  const releaseTrial = async (trialId: string): Promise<void> => {
    const vm = trials.get(trialId);
    if (!vm || !run) return;
    trials.delete(trialId);
    if (vm.vmHandle) await run.cleanup.release(vm.vmHandle);
    await run.cleanup.release(vm.dirHandle);
  };

  return {
    backend,
    variant,

    async probe(): Promise<ProbeResult> {
      const version = await qemuVersion();
      if (!version) return { backend, available: false, version: null, details: {}, reason: `${QEMU_BINARY} is not installed`, fix: 'apt-get install qemu-system-x86' };
      const missing = await missingTool();
      if (missing) return { backend, available: false, version: `qemu ${version}`, details: {}, ...missing };
      try {
        assets = assets ?? (await guestAssets(run?.stateDir ?? defaultStateDir(), profile, () => undefined));
      } catch (error) {
        const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        return { backend, available: false, version: `qemu ${version}`, details: {}, reason: `guest kernel/initramfs unavailable: ${message}`, fix: 'apt-get update (the guest kernel is Debian linux-image-cloud-amd64, fetched with apt-get download)' };
      }
      return {
        backend,
        available: true,
        version: `qemu ${version}`,
        details: { ...facts(), accelerator_reason: assets.verdict.reason, kernel_version: assets.kernel.release },
      };
    },

    async prepare(context: RunContext): Promise<void> {
      run = context;
      assets = assets ?? (await guestAssets(context.stateDir, profile, context.log));
      rootDisk = await ensureRootDisk(context.stateDir, context.image);
      context.log(`${backend}: ${assets.verdict.accelerator} (${assets.verdict.reason}); kernel ${assets.kernel.release}; root disk ${rootDisk.digest.slice(0, 19)}`);
    },

    async stageWorkspace(trial: TrialContext): Promise<WorkspaceBinding> {
      if (!run) throw new Error(`${backend}: prepare() was not called`);
      const name = `sandbench-${run.runId}-${trial.trialId}`;
      const dir = join(trial.trialDir, name);
      mkdirSync(dir, { recursive: true });
      // Released by finishTrial or by the registry on SIGINT; either way the trial is over for collect().
      const dirHandle = run.cleanup.register('tempdir', name, () => {
        trials.delete(trial.trialId);
        rmSync(dir, { recursive: true, force: true });
      });
      trials.set(trial.trialId, { dir, dirHandle, scratch: '', vmHandle: null });
      trials.get(trial.trialId)!.scratch = await buildScratchDisk(trial.baselineWorkspace, dir);
      // The guest writes only into the scratch disk: the host baseline stays byte-identical.
      return { hostPath: trial.baselineWorkspace, claimsStaging: true };
    },

    async launch(trial: TrialContext, task: TaskCommand): Promise<RunningTrial> {
      const vm = trials.get(trial.trialId);
      if (!run || !assets || !rootDisk || !vm) throw new Error(`${backend}: launch() before prepare()/stageWorkspace()`);
      const name = `sandbench-${run.runId}-${trial.trialId}`;
      const memoryMiB = trial.controls.memoryMiB ?? run.options.vmMemoryMiB ?? DEFAULT_VM_MEMORY_MiB;
      if (memoryMiB < MIN_VM_MEMORY_MiB) {
        throw new Error(`${backend}: ${memoryMiB} MiB of guest RAM cannot boot the guest kernel (it resets silently); give VM arms at least ${MIN_VM_MEMORY_MiB} MiB (controls.memory)`);
      }
      validateExtras(task);
      // Extras: each mount a cached read-only disk (built before the spawn, so outside timing); the
      // service through a guestfwd at GUEST_SERVICE_ADDR, the only route the guest gets.
      const mountDisks = await ensureMountDisks(run.stateDir, task.mounts ?? []);
      const net = task.service ? { guestAddr: GUEST_ADDR, serviceAddr: GUEST_SERVICE_ADDR } : null;
      const guestTask = { ...task, env: { ...task.env, ...serviceEnv(task.service, { url: `http://${GUEST_SERVICE_ADDR}:${GUEST_SERVICE_PORT}` }) } };
      const spec: VmLaunchSpec = {
        name,
        profile,
        accelerator: assets.verdict.accelerator,
        memoryMiB,
        vcpus: VM_VCPUS,
        kernelPath: assets.kernel.vmlinuzPath,
        initrdPath: assets.initramfs.path,
        disks: { root: rootDisk.path, scratch: vm.scratch, task: writeTaskDisk(guestTask, vm.dir, { mounts: mountDisks, net }) },
        tscKhz: hostTscKhz(),
        tcgTbSizeMiB: trial.controls.tcgTbSizeMiB,
        cpuModel: trial.controls.cpuModel ?? null,
        extraDisks: mountDisks,
        serviceSocket: task.service?.socketPath ?? null,
      };
      const running = await startTrial({
        argv: qemuArgv(spec),
        controls: launchControls(trial),
        clearEnv: true,
        env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' },
        stdin: task.stdin,
        timeoutMs: trial.timeoutMs,
        exitCodeFromLines,
        classifyExit,
      });
      const cleanup = run.cleanup;
      const vmHandle = cleanup.register('vm', name, () => running.kill('cleanup'));
      vm.vmHandle = vmHandle;
      // Once qemu is gone (spawnTrial already killed its group) there is nothing left to kill.
      void running.exit.then(() => {
        cleanup.forget(vmHandle);
        if (vm.vmHandle === vmHandle) vm.vmHandle = null;
      });
      return withGuestConsole(running);
    },

    async collect(trial: TrialContext): Promise<CandidateFiles> {
      const vm = trials.get(trial.trialId);
      if (!vm) throw new Error(`${backend}: collect() for trial ${trial.trialId}, which was never staged or was already released (interrupted run?)`);
      const listing = await listUpperLayer(vm.scratch, trial.baselineWorkspace);
      // Outside the VM's temp dir: reads must work after finishTrial; the harness removes trialDir.
      const upperCopy = await extractUpperLayer(vm.scratch, join(trial.trialDir, 'vm-upper'));
      return {
        changed: listing.changed,
        read: (relativePath) => readCandidate(upperCopy, trial.baselineWorkspace, relativePath, listing),
        facts: { ...facts(), stage_upper: upperCopy, vcpus: VM_VCPUS },
      };
    },

    async finishTrial(trial: TrialContext): Promise<void> {
      await releaseTrial(trial.trialId);
    },

    async teardown(): Promise<void> {
      for (const trialId of [...trials.keys()]) await releaseTrial(trialId);
    },
  };
}
