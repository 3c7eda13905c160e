/**
 * The `fork` prefix strategy's applicability, from the backend's descriptor (never its name). A
 * forked attempt (fork-group.ts) needs more of a child than the checkpoint kind's state program
 * does: the agent's support mounts, the model-service endpoint and the attempt's cgroup, given to
 * the mechanism as MechanismTrial.attach. A mechanism that does not declare `attachments:
 * 'honoured'` would start its children without them, so a fork cell there records every attempt as
 * not applicable with this reason, never a silent fresh start. null = fork runs.
 */
import { createCheckpointMechanism } from '../../executors/checkpoint/registry.ts';

export function forkUnavailableReason(backend: string, variant: string | null): string | null {
  const mechanism = createCheckpointMechanism(backend, variant);
  if (!mechanism) return `backend ${backend}'s descriptor offers no checkpoint mechanism`;
  if (mechanism.attachments === 'honoured') return null;
  return (
    `the ${backend} checkpoint mechanism (preserves ${mechanism.preserves}) does not honour MechanismTrial.attach: ` +
    'its parent and children would start without the attempt\'s support mounts, model-service endpoint and cgroup, so a forked attempt could not run its agent'
  );
}
