/** Backend name → executor factory. One line per adapter. */
import type { BackendName, Executor } from '../harness/contracts/executor.ts';
import { createHostExecutor } from './host.ts';
import { createStagedExecutor } from './staged.ts';
import { createPodmanExecutor } from './podman.ts';
import { createDockerExecutor } from './docker.ts';
import { createQemuMicrovmExecutor } from './qemu-microvm.ts';
import { createQemuQ35Executor } from './qemu-q35.ts';
import { createPvisorExecutor } from './pvisor.ts';

export type ExecutorFactory = (variant: string | null) => Executor;

export const EXECUTOR_FACTORIES: Partial<Record<BackendName, ExecutorFactory>> = {
  host: createHostExecutor,
  staged: createStagedExecutor,
  podman: createPodmanExecutor,
  docker: (variant) => createDockerExecutor(variant),
  'qemu-microvm': createQemuMicrovmExecutor,
  'qemu-q35': createQemuQ35Executor,
  pvisor: createPvisorExecutor,
};

export function createExecutor(backend: BackendName, variant: string | null): Executor | null {
  const factory = EXECUTOR_FACTORIES[backend];
  return factory ? factory(variant) : null;
}
