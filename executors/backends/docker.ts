/** Docker through a private dockerd the harness starts (or a given engine). */
import { sandboxTraits } from '../../harness/backends.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { createDockerCheckpoint } from '../checkpoint/docker-mechanism.ts';
import { createDockerExecutor } from '../docker.ts';
import { dockerContainers, harnessDockerd } from '../leftover-sources.ts';

export const dockerBackend: ExecutorDescriptor = {
  name: 'docker',
  summary: 'Docker containers on a private dockerd (runc by default; build.runtime names another OCI runtime)',
  traits: sandboxTraits({
    launch: 'engine-client',
    clientCommand: 'docker',
    // containerd starts containerd-shim outside any --cgroup-parent.
    runtimeHelpersOutsideCgroup: true,
    buildFields: ['runtime'],
    memoryAccounting: 'cgroup',
    fleetNeeds: { privileged: 'docker: a private dockerd (runc, cgroups, iptables)', containerStorage: true },
  }),
  create: (variant, build) => createDockerExecutor(variant, { build }),
  checkpoint: createDockerCheckpoint,
  leftovers: [dockerContainers, harnessDockerd],
};
