/** pVisor (PyPI pvisor-sandbox), where installed. */
import { sandboxTraits } from '../../harness/backends.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { createPvisorCheckpoint } from '../checkpoint/pvisor-mechanism.ts';
import { createPvisorExecutor } from '../pvisor.ts';

export const pvisorBackend: ExecutorDescriptor = {
  name: 'pvisor',
  summary: 'pVisor sandboxes (optional: installed from PyPI where reachable)',
  traits: sandboxTraits({
    launch: 'vm',
    // Run with `--overlaynet off` as in the published study, which leaves the host network reachable.
    networkIsolated: false,
    buildFields: ['pvisor'],
    memoryAccounting: 'process-tree',
    fleetNeeds: { kvm: 'pvisor: KVM for its guest' },
  }),
  create: createPvisorExecutor,
  checkpoint: createPvisorCheckpoint,
};
