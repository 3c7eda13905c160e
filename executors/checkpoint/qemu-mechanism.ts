/**
 * `qemu-microvm` / `qemu-q35` checkpoint (files + process state): the parent VM boots the task
 * image with the state program on its serial console. Checkpoint over QMP: `stop`, raise
 * max-bandwidth (the default 128 MiB/s cap made the save 0.71 s), `migrate exec:cat > FILE` (QEMU
 * 7.2 has no file: URI), poll until completed; the parent stays paused and is then ended, its raw
 * scratch disk frozen. Child i: a qcow2 overlay on the frozen scratch disk, the same argv plus
 * `-incoming "exec:cat FILE"` and its own QMP socket; it loads paused and gets `cont`.
 * Children need an identical machine and device set, so the argv is the parent's with only the
 * scratch drive (qcow2 overlay), the name and the QMP socket changed.
 *
 * It honours MechanismTrial.attach as the qemu executor's launch does: each mount a cached
 * read-only disk, the service through a guestfwd to its Unix socket (the URL in the program's
 * environment), and the VM process in the trial's cgroup. Children inherit the disks and the
 * guestfwd with the parent's argv; each child's VM enters its own trial's (attempt's) cgroup. The
 * program is told the console's line limit, so a long answer (a candidate) comes in parts.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { ProbeResult, RunContext, RunningTrial } from '../../harness/contracts/executor.ts';
import { placeSocket } from '../../harness/run/socket-path.ts';
import { createQemuMicrovmExecutor } from '../qemu-microvm.ts';
import { createQemuQ35Executor } from '../qemu-q35.ts';
import { qemuVersion } from '../qemu.ts';
import { spawnTrial } from '../spawn-trial.ts';
import { cachedVerdict, forcedAccelerator, hostTscKhz, kvmOpenError, type AcceleratorVerdict } from '../vm/accelerator.ts';
import { classifyExit } from '../vm/console-protocol.ts';
import { withGuestConsole } from '../vm/guest-console.ts';
import { ensureGuestKernel, type GuestKernel } from '../vm/guest-kernel.ts';
import { ensureInitramfs, type Initramfs } from '../vm/initramfs.ts';
import { MICROVM, Q35, qemuArgv, type VmLaunchSpec } from '../vm/qemu-argv.ts';
import { ensureRootDisk, type RootDisk } from '../vm/root-disk.ts';
import { ensureMountDisks } from '../vm/mount-disks.ts';
import { GUEST_ADDR, GUEST_SERVICE_ADDR, GUEST_SERVICE_PORT } from '../vm/qemu-argv.ts';
import { serviceEnv } from '../sandbox-extras.ts';
import { buildScratchDisk, writeTaskDisk } from '../vm/trial-disks.ts';
import { lineChannel } from './line-channel.ts';
import type { CheckpointImage, CheckpointMechanism, MechanismTrial, ParentSandbox, Sandbox } from './mechanism.ts';
import { openQmp, waitMigration, waitStatus, type QmpClient } from './qmp.ts';
import { TrialResources } from './tracked.ts';
import { RUN_ID_ENV } from './state-process.ts';

/** Longest answer line a program may write on the serial console: it splits lines over 200 characters (docs/rollout-step.md). */
const CONSOLE_LINE_MAX = 160;

/** Migration bandwidth during the save: far above what a local pipe can take (bytes/s). */
const SAVE_BANDWIDTH = 64 * 1024 * 1024 * 1024;

interface Assets {
  version: string;
  kernel: GuestKernel;
  initramfs: Initramfs;
  rootDisk: RootDisk;
  verdict: AcceleratorVerdict;
}

interface Vm {
  running: RunningTrial;
  qmp: QmpClient | null;
  qmpPath: string;
}

/** The parent's argv with the scratch drive replaced by a qcow2 overlay (same device id and serial). */
export function childArgv(parentArgv: readonly string[], parentScratch: string, overlay: string, name: string): string[] {
  let replaced = 0;
  const argv = parentArgv.map((word) => {
    if (word.startsWith('id=scratch,') && word.includes(`file=${parentScratch.replace(/,/g, ',,')},`)) {
      replaced++;
      return word.replace(`file=${parentScratch.replace(/,/g, ',,')},format=raw`, `file=${overlay.replace(/,/g, ',,')},format=qcow2`);
    }
    return word;
  });
  if (replaced !== 1) throw new Error(`qemu child argv: expected one scratch drive, found ${replaced}`);
  const nameAt = argv.indexOf('-name');
  if (nameAt >= 0) argv[nameAt + 1] = name.replace(/,/g, ',,');
  return argv;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function createQemuCheckpoint(backend: 'qemu-microvm' | 'qemu-q35', variant: string | null = null): CheckpointMechanism {
  const profile = backend === 'qemu-microvm' ? MICROVM : Q35;
  const executor = backend === 'qemu-microvm' ? createQemuMicrovmExecutor(variant) : createQemuQ35Executor(variant);
  let assets: Assets | null = null;
  let memoryMiB = 256;
  const resources = new Map<string, TrialResources>();
  const parents = new Map<string, { argv: string[]; scratch: string; vm: Vm }>();
  const children = new Map<string, Vm>();
  const resourcesOf = (trial: MechanismTrial) => {
    if (!resources.has(trial.trialId)) resources.set(trial.trialId, new TrialResources(trial.run.cleanup));
    return resources.get(trial.trialId)!;
  };
  const stateFile = (trial: MechanismTrial) => join(trial.dir, 'vm-state.bin');
  /** QMP socket: a unix socket path must stay under 108 bytes, and run scratch paths are long, so it
   *  sits directly in the run's scratch directory (found by clean) under a short hashed name — or,
   *  past the limit (a long fixture root), in the short socket dir (harness/run/socket-path.ts). */
  const qmpSocket = (trial: MechanismTrial, role: string) => {
    const socket = placeSocket(join(dirname(trial.dir), `q${createHash('sha256').update(`${trial.trialId}/${role}`).digest('hex').slice(0, 10)}.sock`));
    resourcesOf(trial).add('tempdir', socket.path, () => {
      rmSync(socket.path, { force: true });
      socket.release();
    });
    return socket.path;
  };
  const vmName = (trial: MechanismTrial, role: string) => `sandbench-${trial.run.runId}-${trial.trialId}-${role}`;

  const spawnVm = (trial: MechanismTrial, argv: string[], role: string): RunningTrial => {
    // attach: the VM process in the trial's cgroup (a child's trial carries its attempt's)
    const controls = trial.attach?.budget ? { controls: { cpus: null, budget: trial.attach.budget } } : {};
    const running = spawnTrial({ argv, clearEnv: true, env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', [RUN_ID_ENV]: trial.run.runId }, stdin: 'pipe', timeoutMs: trial.timeoutMs, classifyExit, ...controls });
    resourcesOf(trial).add('vm', vmName(trial, role), () => running.kill('cleanup'));
    return running;
  };

  return {
    backend,
    variant,
    preserves: 'files+process',
    attachments: 'honoured',
    async probe(): Promise<ProbeResult> {
      const base = await executor.probe();
      if (!base.available) return base;
      const img = await execa('qemu-img', ['--version'], { reject: false });
      if (img.exitCode !== 0) return { ...base, available: false, reason: 'qemu-img is missing (qcow2 overlays per child)', fix: 'apt-get install qemu-utils' };
      return base;
    },
    async prepare(run: RunContext) {
      const version = await qemuVersion();
      if (!version) throw new Error(`${backend}: qemu is not installed`);
      const kernel = await ensureGuestKernel(run.stateDir, run.log);
      const initramfs = await ensureInitramfs(run.stateDir, kernel);
      const rootDisk = await ensureRootDisk(run.stateDir, run.image);
      // The executor's probe decides KVM vs TCG (booting a test guest) and caches the verdict.
      await executor.probe();
      const forced = forcedAccelerator();
      const verdict: AcceleratorVerdict = forced
        ? { accelerator: forced, reason: `forced by SANDBENCH_VM_ACCEL=${forced}` }
        : kvmOpenError()
          ? { accelerator: 'tcg', reason: `KVM unusable (${kvmOpenError()}); TCG emulation` }
          : (cachedVerdict(run.stateDir, version, kernel.digest) ?? { accelerator: 'tcg', reason: 'no KVM verdict cached; TCG emulation' });
      assets = { version, kernel, initramfs, rootDisk, verdict };
      memoryMiB = run.options.vmMemoryMiB ?? 256;
    },
    async startParent(trial): Promise<ParentSandbox> {
      if (!assets) throw new Error(`${backend} checkpoint: prepare() was not called`);
      const dir = join(trial.dir, 'parent');
      mkdirSync(dir, { recursive: true });
      const scratch = await buildScratchDisk(trial.baseline, dir);
      const command = trial.program.stdio('/workspace', undefined, CONSOLE_LINE_MAX);
      // attach (mechanism.ts), as the qemu executor's launch: mounts as read-only disks, the service through a guestfwd
      const service = trial.attach?.service ?? undefined;
      const mountDisks = await ensureMountDisks(trial.run.stateDir, trial.attach?.mounts ?? []);
      const net = service ? { guestAddr: GUEST_ADDR, serviceAddr: GUEST_SERVICE_ADDR } : null;
      const env = { ...command.env, ...serviceEnv(service, { url: `http://${GUEST_SERVICE_ADDR}:${GUEST_SERVICE_PORT}` }) };
      const spec: VmLaunchSpec = {
        name: vmName(trial, 'parent'),
        profile,
        accelerator: assets.verdict.accelerator,
        memoryMiB: trial.vmMemoryMiB ?? memoryMiB,
        vcpus: 2,
        kernelPath: assets.kernel.vmlinuzPath,
        initrdPath: assets.initramfs.path,
        disks: { root: assets.rootDisk.path, scratch, task: writeTaskDisk({ argv: command.argv, env, stdin: 'pipe' }, dir, { mounts: mountDisks, net }) },
        tscKhz: hostTscKhz(),
        extraDisks: mountDisks,
        serviceSocket: service?.socketPath ?? null,
      };
      const argv = qemuArgv(spec);
      const qmpPath = qmpSocket(trial, 'parent');
      const running = spawnVm(trial, [...argv, '-qmp', `unix:${qmpPath},server=on,wait=off`], 'parent');
      // The parent's console needs the init's stdin handshake (SANDBENCH_STDIN_OPEN).
      const consoleView = withGuestConsole(running);
      const vm: Vm = { running, qmp: null, qmpPath };
      parents.set(trial.trialId, { argv, scratch, vm });
      return {
        id: 'parent',
        channel: lineChannel(consoleView, trial.program.answerPrefix, `${backend} parent`),
        pids: async () => running.rootPids(),
        facts: { vm: spec.name, accelerator: assets.verdict.accelerator, machine: profile.machine, qemu: assets.version },
        internal: vm,
      };
    },
    async quiesce(parent) {
      await parent.channel.request({ op: 'sync' });
    },
    async checkpoint(trial, parent): Promise<CheckpointImage> {
      const vm = parent.internal as Vm;
      const file = stateFile(trial);
      vm.qmp = await openQmp(vm.qmpPath);
      await vm.qmp.execute('stop');
      await vm.qmp.execute('migrate-set-parameters', { 'max-bandwidth': SAVE_BANDWIDTH });
      await vm.qmp.execute('migrate', { uri: `exec:cat > ${file}` });
      const stats = await waitMigration(vm.qmp, trial.timeoutMs);
      vm.qmp.close();
      // The parent stays stopped (postmigrate); end it so its scratch disk is the children's frozen base.
      await vm.running.kill('checkpointed');
      const scratch = parents.get(trial.trialId)!.scratch;
      const { stdout } = await execa('du', ['-sk', scratch]);
      return {
        diskBytes: Number.parseInt(stdout, 10) * 1024,
        memoryBytes: statSync(file).size,
        parentPaused: true,
        facts: { state_file: file, migrate_total_ms: (stats as { 'total-time'?: number })['total-time'] ?? null, accelerator: assets?.verdict.accelerator, scratch_apparent_bytes: statSync(scratch).size, parent_after: 'stopped for the save, then ended' },
      };
    },
    async restore(trial, _image, index): Promise<Sandbox> {
      const parent = parents.get(trial.trialId);
      if (!parent) throw new Error(`${backend}: restore before startParent`);
      const dir = join(trial.dir, `child-${index}`);
      mkdirSync(dir, { recursive: true });
      const overlay = join(dir, 'scratch.qcow2');
      await execa('qemu-img', ['create', '-q', '-f', 'qcow2', '-F', 'raw', '-b', parent.scratch, overlay]);
      const qmpPath = qmpSocket(trial, `child${index}`);
      const name = vmName(trial, `child${index}`);
      const argv = [...childArgv(parent.argv, parent.scratch, overlay, name), '-incoming', `exec:cat ${stateFile(trial)}`, '-qmp', `unix:${qmpPath},server=on,wait=off`];
      const running = spawnVm(trial, argv, `child${index}`);
      const vm: Vm = { running, qmp: null, qmpPath };
      children.set(`${trial.trialId}/${index}`, vm);
      // Children do not get the console handshake again: the restored tty is already open.
      const channel = lineChannel(running, trial.program.answerPrefix, `${backend} child ${index}`);
      vm.qmp = await openQmp(qmpPath, trial.timeoutMs);
      await waitStatus(vm.qmp, 'paused', trial.timeoutMs);
      await vm.qmp.execute('cont');
      vm.qmp.close();
      // A restored process does not greet again: its first answer marks ready.
      void channel.request({ op: 'get' }, trial.timeoutMs).catch(() => undefined);
      return { id: `child-${index}`, channel, pids: async () => running.rootPids(), facts: { vm: name, overlay } };
    },
    async frozenDigest(trial) {
      const parent = parents.get(trial.trialId);
      if (!parent) return null;
      // The state file by content; the frozen scratch disk by size and mtime (hashing its GiB of
      // sparse zeros per check would cost seconds; a child writing through would move its mtime).
      const stat = statSync(parent.scratch);
      return `state:${await sha256File(stateFile(trial))} scratch:${stat.size}:${stat.mtimeMs}`;
    },
    async destroy(trial, sandbox) {
      const index = Number(sandbox.id.replace('child-', ''));
      const vm = children.get(`${trial.trialId}/${index}`);
      if (vm) await vm.running.kill('child done');
    },
    async discard(trial) {
      const tracked = resources.get(trial.trialId);
      resources.delete(trial.trialId);
      parents.delete(trial.trialId);
      for (const key of [...children.keys()].filter((k) => k.startsWith(`${trial.trialId}/`))) children.delete(key);
      const errors = tracked ? await tracked.releaseAll() : [];
      rmSync(trial.dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
      if (errors.length > 0) throw new Error(`${backend} checkpoint cleanup: ${errors.join('; ')}`);
    },
    async teardown() {},
  };
}
