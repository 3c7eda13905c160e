/** Backend → checkpoint mechanism. A backend without one has no checkpoint arm (the kind says so). */
import type { BackendName } from '../../harness/contracts/executor.ts';
import { createDockerCheckpoint } from './docker-mechanism.ts';
import { createHostCheckpoint } from './host-mechanism.ts';
import type { CheckpointMechanism } from './mechanism.ts';
import { createPodmanCheckpoint } from './podman-mechanism.ts';
import { createPvisorCheckpoint } from './pvisor-mechanism.ts';
import { createQemuCheckpoint } from './qemu-mechanism.ts';
import { createStagedCheckpoint } from './staged-mechanism.ts';

const FACTORIES: Partial<Record<BackendName, (variant: string | null) => CheckpointMechanism>> = {
  staged: createStagedCheckpoint,
  host: createHostCheckpoint,
  podman: createPodmanCheckpoint,
  docker: createDockerCheckpoint,
  'qemu-microvm': (variant) => createQemuCheckpoint('qemu-microvm', variant),
  'qemu-q35': (variant) => createQemuCheckpoint('qemu-q35', variant),
  pvisor: createPvisorCheckpoint,
};

export function createCheckpointMechanism(backend: BackendName, variant: string | null): CheckpointMechanism | null {
  return FACTORIES[backend]?.(variant) ?? null;
}
