/** The checkpoint kind's spec section (`checkpoint:`): children per parent, the parent's file size, VM memory. */
import { z } from 'zod';
import { size } from '../../harness/spec/fields.ts';
import { defineSection } from '../../harness/spec/kind-spec.ts';

/** checkpoint kind: branch K children from one mid-rollout parent per trial (experiments/checkpoint). */
export const CheckpointSpecSchema = z
  .object({
    children: z.array(z.number().int().positive().max(32)).min(1).default([1, 4, 8]),
    /** The parent's larger file, MiB (issue 18: one 32 MiB file next to small edits). */
    file_mib: z.number().int().nonnegative().default(32),
    /** Guest RAM of the VM arms. */
    vm_memory: size.default(256),
  })
  .strict();

export type CheckpointSpec = z.output<typeof CheckpointSpecSchema>;

export const checkpointSpecSection = defineSection({
  key: 'checkpoint',
  schema: CheckpointSpecSchema,
  // Cells are arm × K (checkpoint-plan.ts): every block runs each cell once.
  expansion: (checkpoint, spec) => [
    {
      what: 'planned trials',
      factors: [
        { field: 'trials + warmups', value: spec.trials + spec.warmups },
        { field: 'arms', value: spec.arms.length },
        { field: 'checkpoint.children', value: new Set(checkpoint.children).size },
      ],
      limit: 'planned_trials',
    },
  ],
});
