/** Podman with an OCI runtime (runc by default; `build.runtime` names another, e.g. crun or runsc). */
import { sandboxTraits } from '../../harness/backends.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { createPodmanCheckpoint } from '../checkpoint/podman-mechanism.ts';
import { podmanContainers } from '../leftover-sources.ts';
import { createPodmanExecutor } from '../podman.ts';

export const podmanBackend: ExecutorDescriptor = {
  name: 'podman',
  summary: 'Podman containers (runc by default; build.runtime names another OCI runtime)',
  traits: sandboxTraits({
    // `podman run` asks conmon and the runtime to start the container: not the client's children.
    launch: 'engine-client',
    clientCommand: 'podman',
    buildFields: ['runtime'],
    memoryAccounting: 'cgroup',
    fleetNeeds: { privileged: 'podman: a nested container engine (runc, cgroups, overlay storage)', containerStorage: true },
  }),
  create: createPodmanExecutor,
  checkpoint: createPodmanCheckpoint,
  leftovers: [podmanContainers],
};
