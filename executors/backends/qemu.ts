/** QEMU guests: a microvm and a q35 PC, each booting the task image as its root disk. */
import { sandboxTraits, type BackendTraits } from '../../harness/backends.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { createQemuCheckpoint } from '../checkpoint/qemu-mechanism.ts';
import { createQemuMicrovmExecutor } from '../qemu-microvm.ts';
import { createQemuQ35Executor } from '../qemu-q35.ts';

function vmTraits(name: string): BackendTraits {
  // The qemu process is the launcher's child and holds the whole guest: its tree is the sandbox.
  return sandboxTraits({ launch: 'vm', memoryAccounting: 'process-tree', fleetNeeds: { kvm: `${name}: KVM (TCG without it, recorded as such)` } });
}

export const qemuMicrovmBackend: ExecutorDescriptor = {
  name: 'qemu-microvm',
  summary: 'QEMU microvm guest (KVM, or TCG where KVM is unusable)',
  traits: vmTraits('qemu-microvm'),
  create: (variant) => createQemuMicrovmExecutor(variant),
  checkpoint: (variant) => createQemuCheckpoint('qemu-microvm', variant),
};

export const qemuQ35Backend: ExecutorDescriptor = {
  name: 'qemu-q35',
  summary: 'QEMU q35 PC guest (KVM, or TCG where KVM is unusable)',
  traits: vmTraits('qemu-q35'),
  create: (variant) => createQemuQ35Executor(variant),
  checkpoint: (variant) => createQemuCheckpoint('qemu-q35', variant),
};
