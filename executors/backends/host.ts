/** The host itself: the unisolated floor every sandbox is measured against. */
import { sandboxTraits } from '../../harness/backends.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { createHostCheckpoint } from '../checkpoint/host-mechanism.ts';
import { createHostExecutor } from '../host.ts';

export const hostBackend: ExecutorDescriptor = {
  name: 'host',
  summary: 'the host itself, no sandbox (the unisolated floor)',
  traits: sandboxTraits({
    launch: 'direct',
    // No namespaces at all: the host's network, /tmp and filesystem are the task's.
    networkIsolated: false,
    privateTmp: false,
    isolatesFilesystem: false,
    hostTraceable: true,
    launchesArgvDirectly: true,
    buildFields: ['wrapper'],
    memoryAccounting: 'process-tree',
  }),
  create: createHostExecutor,
  checkpoint: createHostCheckpoint,
};
