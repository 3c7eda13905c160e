/**
 * The qemu command line for one trial VM. microvm and q35 differ only in the machine and in the
 * virtio transport (mmio `*-device` vs `*-pci`); everything else is shared so the two arms differ
 * by machine model alone. No NIC at all (-nodefaults, -nic none). The guest's stdout console is
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
}

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
  const accel = spec.accelerator === 'kvm' ? ['-accel', 'kvm', '-cpu', 'host'] : ['-accel', 'tcg,tb-size=32']; // tb-size=32: ~40 MiB less per VM (backend-notes)
  const disks = spec.disks
    ? [
        ...diskArgs(profile, 'root', spec.disks.root, ROOT_DISK_SERIAL, 'readonly=on'),
        // cache=unsafe: the scratch disk is thrown away if the host crashes, so skip host flushes.
        ...diskArgs(profile, 'scratch', spec.disks.scratch, SCRATCH_DISK_SERIAL, 'cache=unsafe'),
        ...diskArgs(profile, 'task', spec.disks.task, TASK_DISK_SERIAL, 'readonly=on'),
      ]
    : [];
  return [
    QEMU_BINARY,
    '-name', optionValue(spec.name),
    '-M', profile.machine,
    ...accel,
    '-smp', String(spec.vcpus),
    '-m', String(spec.memoryMiB),
    '-nodefaults', '-no-user-config', '-display', 'none', '-nic', 'none',
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
