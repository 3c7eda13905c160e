/**
 * The executor layer's view of a backend descriptor: the ground's contract
 * (harness/contracts/backend-descriptor.ts) plus the optional checkpoint mechanism, which lives in
 * this layer (executors/checkpoint/mechanism.ts) and so cannot be named by the ground.
 */
import type { BackendDescriptor } from '../harness/contracts/backend-descriptor.ts';
import type { CheckpointMechanism } from './checkpoint/mechanism.ts';

export interface ExecutorDescriptor extends BackendDescriptor {
  /** How this backend checkpoints and forks a running sandbox (the checkpoint kind's arm); absent = no checkpoint arm. */
  checkpoint?(variant: string | null): CheckpointMechanism;
}
