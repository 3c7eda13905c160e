/** `qemu-q35`: a full PC (Q35 chipset, SeaBIOS, virtio-pci devices); see executors/qemu.ts. */
import type { ExecutorImplementation } from '../harness/contracts/executor.ts';
import { createQemuExecutor } from './qemu.ts';
import { Q35 } from './vm/qemu-argv.ts';

export function createQemuQ35Executor(variant: string | null = null): ExecutorImplementation {
  return createQemuExecutor({ backend: 'qemu-q35', profile: Q35, variant });
}
