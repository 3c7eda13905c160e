/** gVisor: `runsc run` directly on an OCI bundle of the task image, no daemon (ptrace platform by default). */
import { rmSync } from 'node:fs';
import { basename } from 'node:path';
import { sandboxTraits } from '../../harness/backends.ts';
import type { Leftover, LeftoverSource } from '../../harness/clean/leftover.ts';
import { runIdIn, UNKNOWN_RUN } from '../../harness/clean/run-ids.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { createGvisorCheckpoint } from '../checkpoint/gvisor-mechanism.ts';
import { createGvisorExecutor } from '../gvisor.ts';
import { deleteContainer, listContainers, resolveBinary, runRoots } from '../gvisor/runsc.ts';

/** Containers in the runsc roots below `<stateDir>/runsc` (each root `sandbench-<runId>`), and the roots themselves. */
export const runscContainers: LeftoverSource = {
  name: 'runsc containers',
  async find(stateDir) {
    const binary = resolveBinary('runsc');
    const found: Leftover[] = [];
    for (const root of runRoots(stateDir)) {
      const rootRun = basename(root).slice('sandbench-'.length);
      const ids = binary ? await listContainers(binary, root) : [];
      for (const id of ids) {
        found.push({ kind: 'container', id: `runsc/${id}`, runId: runIdIn(id, [rootRun]) ?? UNKNOWN_RUN, remove: () => deleteContainer(binary!, root, id) });
      }
      // The root goes after its containers (clean removes containers before temp dirs).
      found.push({
        kind: 'tempdir',
        id: root,
        runId: rootRun,
        remove: async () => {
          if (binary && (await listContainers(binary, root)).length > 0) throw new Error(`${root} still holds runsc containers; not removing`);
          rmSync(root, { recursive: true, force: true });
        },
      });
    }
    return found;
  },
};

export const gvisorBackend: ExecutorDescriptor = {
  name: 'gvisor',
  summary: 'gVisor runsc run on an OCI bundle of the task image, no daemon (platform: variant or SANDBENCH_GVISOR_PLATFORM, ptrace by default)',
  traits: sandboxTraits({
    // The launcher spawns `runsc run`; its gofer and sentry are runsc's children, so the launched tree holds the sandbox.
    launch: 'direct',
    networkIsolated: true,
    privateTmp: true,
    // The task runs under the sentry: its processes are not host processes.
    hostTraceable: false,
    launchesArgvDirectly: false,
    buildFields: ['runtime'],
    memoryAccounting: 'process-tree',
    fleetNeeds: { privileged: 'gvisor: runsc run as root (ptrace platform, mount namespaces, cgroups, a host overlayfs per trial)' },
  }),
  create: (variant, build) => createGvisorExecutor(variant, build),
  checkpoint: createGvisorCheckpoint,
  leftovers: [runscContainers],
};
