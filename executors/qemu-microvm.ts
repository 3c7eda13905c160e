/** `qemu-microvm`: QEMU's minimal machine (no PCI, virtio-mmio devices); see executors/qemu.ts. */
import type { ExecutorImplementation } from '../harness/contracts/executor.ts';
import { createQemuExecutor } from './qemu.ts';
import { MICROVM } from './vm/qemu-argv.ts';

export function createQemuMicrovmExecutor(variant: string | null = null): ExecutorImplementation {
  return createQemuExecutor({ backend: 'qemu-microvm', profile: MICROVM, variant });
}
