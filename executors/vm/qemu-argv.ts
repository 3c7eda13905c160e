/**
 * The qemu command line for one trial VM. microvm and q35 differ only in the machine and in the
 * virtio transport (mmio `*-device` vs `*-pci`); everything else is shared so the two arms differ
 * by machine model alone. No NIC (-nodefaults, -nic none) unless the task has a service (serviceNetArgs). The guest's stdout console is
 * the serial port on qemu's stdio; its stderr is a virtconsole written to qemu's own stderr, which
 * must be a socket (spawnTrial's pipes are).
 */
import type { Accelerator } from './accelerator.ts';
import type { VirtioTransport } from './initramfs.ts';
import { ROOT_DISK_SERIAL } from './root-disk.ts';
import { SCRATCH_DISK_SERIAL, TASK_DISK_SERIAL } from './trial-disks.ts';

export const QEMU_BINARY = 'qemu-system-x86_64';

export interface MachineProfile {
  /** Value of -M. */
  machine: 'microvm' | 'q35';
  transport: VirtioTransport;
  blockDevice: 'virtio-blk-device' | 'virtio-blk-pci';
  serialBus: 'virtio-serial-device' | 'virtio-serial-pci';
  /** Machine-specific kernel arguments. */
  kernelArgs: string[];
}

// microvm has no PCI bus: pci=off spares the probe and its "No config space access" console error.
export const MICROVM: MachineProfile = { machine: 'microvm', transport: 'mmio', blockDevice: 'virtio-blk-device', serialBus: 'virtio-serial-device', kernelArgs: ['pci=off'] };
export const Q35: MachineProfile = { machine: 'q35', transport: 'pci', blockDevice: 'virtio-blk-pci', serialBus: 'virtio-serial-pci', kernelArgs: [] };

export interface VmDisks {
  root: string;
  scratch: string;
  task: string;
}

export interface VmLaunchSpec {
  /** `sandbench-<runId>-<trialId>`: qemu -name, so `ps` and `sandbench clean` can find it. */
  name: string;
  profile: MachineProfile;
  accelerator: Accelerator;
  memoryMiB: number;
  vcpus: number;
  kernelPath: string;
  initrdPath: string;
  /** Absent for the accelerator probe boot, which needs no disks. */
  disks: VmDisks | null;
  /** Host TSC kHz for tsc_early_khz (TCG only); null when unknown. */
  tscKhz: number | null;
  /** Extra kernel command-line words. */
  extraCmdline?: string[];
  /** TCG translation-cache size, MiB (default DEFAULT_TCG_TB_SIZE_MiB); unused under KVM. */
  tcgTbSizeMiB?: number;
  /** TCG CPU model (`qemu64`, `max`); absent = qemu's default (qemu64). KVM always uses `host`. */
  cpuModel?: string | null;
  /** Extra read-only disks (task mounts), found by the guest through their serials. */
  extraDisks?: { serial: string; path: string }[];
  /** The one network destination: a guestfwd from GUEST_SERVICE_ADDR:PORT to a host Unix socket. */
  serviceSocket?: string | null;
}

/** Where a guest reaches the task's service: slirp guestfwd, restrict=on, so nothing else routes. */
export const GUEST_SERVICE_ADDR = '10.0.2.100';
export const GUEST_SERVICE_PORT = 18080;
/** The guest's own /32 address (slirp's default guest address). */
export const GUEST_ADDR = '10.0.2.15';

/**
 * User networking reduced to one destination: `restrict=on` drops every packet slirp would route
 * (the host, DNS, the outside), and one guestfwd runs `socat` per guest connection to the socket.
 * The guest gets a /32 and one host route (vm-init.sh), so any other address fails at once.
 */
export function serviceNetArgs(profile: MachineProfile, socketPath: string): string[] {
  const cmd = `socat STDIO UNIX-CONNECT:${socketPath}`;
  const device = profile.transport === 'mmio' ? 'virtio-net-device' : 'virtio-net-pci';
  return ['-netdev', `user,id=sbnet,restrict=on,guestfwd=tcp:${GUEST_SERVICE_ADDR}:${GUEST_SERVICE_PORT}-cmd:${optionValue(cmd)}`, '-device', `${device},netdev=sbnet`];
}

// 32 MiB instead of qemu's default (1 GiB on 64-bit hosts): ~40 MiB less per VM (backend-notes "QEMU").
export const DEFAULT_TCG_TB_SIZE_MiB = 32;

/** qemu option values use "," as separator; a literal comma is written ",,". */
const optionValue = (value: string) => value.replace(/,/g, ',,');

export function kernelCmdline(spec: Pick<VmLaunchSpec, 'profile' | 'accelerator' | 'tscKhz' | 'extraCmdline'>): string {
  // loglevel=1: only KERN_EMERG reaches the console, which the task's stdout shares; the init reports
  // OOM kills itself. SANDBENCH_VM_DEBUG=1 shows the full kernel log for diagnosing boot failures.
  const verbosity = process.env.SANDBENCH_VM_DEBUG === '1' ? [] : ['loglevel=1'];
  // edd=off: the boot stub's "Probing EDD" BIOS disk scan prints to the console and finds nothing on virtio.
  const words = ['console=ttyS0', ...verbosity, 'edd=off', 'panic=-1', 'reboot=t', 'rdinit=/init', `sandbench.transport=${spec.profile.transport}`];
  // TCG: skip PIT calibration, which hangs ~25% of microvm boots (backend-notes "QEMU").
  if (spec.accelerator === 'tcg' && spec.tscKhz) words.push(`tsc_early_khz=${spec.tscKhz}`, 'tsc=reliable');
  return [...words, ...spec.profile.kernelArgs, ...(spec.extraCmdline ?? [])].join(' ');
}

function diskArgs(profile: MachineProfile, id: string, file: string, serial: string, options: string): string[] {
  return ['-drive', `id=${id},file=${optionValue(file)},format=raw,if=none,${options}`, '-device', `${profile.blockDevice},drive=${id},serial=${serial}`];
}

export function qemuArgv(spec: VmLaunchSpec): string[] {
  const { profile } = spec;
  const accel = spec.accelerator === 'kvm'
    ? ['-accel', 'kvm', '-cpu', 'host']
    : ['-accel', `tcg,tb-size=${spec.tcgTbSizeMiB ?? DEFAULT_TCG_TB_SIZE_MiB}`, ...(spec.cpuModel ? ['-cpu', spec.cpuModel] : [])];
  const disks = spec.disks
    ? [
        ...diskArgs(profile, 'root', spec.disks.root, ROOT_DISK_SERIAL, 'readonly=on'),
        // cache=unsafe: the scratch disk is thrown away if the host crashes, so skip host flushes.
        ...diskArgs(profile, 'scratch', spec.disks.scratch, SCRATCH_DISK_SERIAL, 'cache=unsafe'),
        ...diskArgs(profile, 'task', spec.disks.task, TASK_DISK_SERIAL, 'readonly=on'),
        ...(spec.extraDisks ?? []).flatMap((disk) => diskArgs(profile, disk.serial, disk.path, disk.serial, 'readonly=on')),
      ]
    : [];
  return [
    QEMU_BINARY,
    '-name', optionValue(spec.name),
    '-M', profile.machine,
    ...accel,
    '-smp', String(spec.vcpus),
    '-m', String(spec.memoryMiB),
    '-nodefaults', '-no-user-config', '-display', 'none',
    ...(spec.serviceSocket ? serviceNetArgs(profile, spec.serviceSocket) : ['-nic', 'none']),
    '-serial', 'stdio',
    // reboot=t in the guest + -no-reboot: the init's final reset ends qemu instead of looping.
    '-no-reboot',
    '-kernel', spec.kernelPath,
    '-initrd', spec.initrdPath,
    '-append', kernelCmdline(spec),
    ...disks,
    // Node's child stdio pipes are socketpairs, which cannot be reopened through /proc/self/fd/2,
    // so the guest's stderr console writes to qemu's inherited stderr socket directly.
    '-chardev', 'socket,id=guest-stderr,fd=2',
    '-device', profile.serialBus,
    '-device', 'virtconsole,chardev=guest-stderr',
  ];
}
