/**
 * The `fork` prefix strategy's applicability, from the backend's descriptor (never its name). The
 * checkpoint kind's mechanisms (executors/checkpoint/: overlay upper, CRIU, QEMU migrate-to-file,
 * runsc) restore children that run the checkpoint kind's state program and answer its requests. A
 * rollout attempt needs more of a child: the agent's command, the model service's endpoint and the
 * collection of its candidate, and CheckpointMechanism offers none of them. Until it does, a fork
 * cell records every attempt as not applicable with this reason, never a silent fresh start.
 */
import { createCheckpointMechanism } from '../../executors/checkpoint/registry.ts';

export function forkUnavailableReason(backend: string, variant: string | null): string {
  const mechanism = createCheckpointMechanism(backend, variant);
  if (!mechanism) return `backend ${backend}'s descriptor offers no checkpoint mechanism`;
  return (
    `the ${backend} checkpoint mechanism (preserves ${mechanism.preserves}) restores children that run the checkpoint kind's state program only; ` +
    'a rollout attempt in a child needs its agent command, the model-service endpoint and candidate collection, which CheckpointMechanism does not offer yet'
  );
}
