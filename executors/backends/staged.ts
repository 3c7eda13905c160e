/** bubblewrap namespaces over an overlayfs copy-on-write workspace. */
import { sandboxTraits } from '../../harness/backends.ts';
import type { ExecutorDescriptor } from '../backend-descriptor.ts';
import { createStagedCheckpoint } from '../checkpoint/staged-mechanism.ts';
import { createStagedExecutor } from '../staged.ts';

export const stagedBackend: ExecutorDescriptor = {
  name: 'staged',
  summary: 'bubblewrap namespaces + overlayfs copy-on-write workspace',
  traits: sandboxTraits({
    launch: 'direct',
    // Its processes are host processes in a pid namespace: the launched tree holds them all. A host
    // strace is not offered (bwrap's pid namespace and dropped capabilities get in its way).
    memoryAccounting: 'process-tree',
    buildFields: ['wrapper'],
    fleetNeeds: { namespaces: 'staged: bubblewrap mount namespace and overlayfs copy-on-write workspace' },
  }),
  create: createStagedExecutor,
  checkpoint: createStagedCheckpoint,
};
