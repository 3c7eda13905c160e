/** The density kind's spec section (`density:`): workloads, concurrency levels, batches and the shared budget. */
import { z } from 'zod';
import { cpuList, duration, size } from '../../harness/spec/fields.ts';
import { defineSection } from '../../harness/spec/kind-spec.ts';

export const DensitySpecSchema = z
  .object({
    workloads: z.array(z.enum(['useful', 'idle'])).min(1).default(['useful']),
    concurrency: z.array(z.number().int().positive()).min(1).default([1, 2, 4, 8, 16, 32]),
    batches: z.number().int().positive().default(5),
    /** Shared budget for the whole batch (study: 2 CPUs, 2 GiB, zero swap). */
    budget_cpus: cpuList.default('0-1'),
    budget_memory: size.default(2048),
    /** Guest RAM per VM worker. */
    vm_memory: size.default(256),
    /** TCG translation-cache size per VM worker, MiB (`-accel tcg,tb-size=`); a recorded control (ignored under KVM). */
    vm_tcg_tb_size: z.number().int().positive().default(32),
    payload_mib: z.number().int().nonnegative().default(32),
    /**
     * Where podman's and docker's `run` clients run (a recorded control; other backends have none):
     * `outside` the budget (only the container and its runtime helper are charged) or `inside` it (the
     * client enters the budget like a launcher's child, so its memory counts, as the study's
     * "every process of the batch" does). Each client holds ~9 MiB anonymous memory here.
     */
    container_clients: z.enum(['outside', 'inside']).default('outside'),
    ready_timeout: duration.default(120_000),
    /** Bisect the largest N where every batch passes, between these bounds. */
    capacity_search: z
      .object({ min: z.number().int().positive(), max: z.number().int().positive() })
      .strict()
      .optional(),
  })
  .strict();

export type DensitySpec = z.output<typeof DensitySpecSchema>;

export const densitySpecSection = defineSection({
  key: 'density',
  schema: DensitySpecSchema,
  encode: (parsed) => ({ ...parsed, ready_timeout: `${parsed.ready_timeout}ms` }),
  applyOverrides: (input, overrides) => ({
    ...input,
    ...(overrides.concurrency ? { concurrency: overrides.concurrency } : {}),
    ...(overrides.batches !== undefined ? { batches: overrides.batches } : {}),
  }),
  // One planned trial per batch of every cell (arm × workload × N); a batch of N runs N sandboxes at once.
  expansion: (density, spec) => {
    const largest = (values: readonly number[], field: string) => ({ field, value: Math.max(...values) });
    return [
      {
        what: 'planned batches',
        factors: [
          { field: 'density.batches', value: density.batches },
          { field: 'arms', value: spec.arms.length },
          { field: 'density.workloads', value: density.workloads.length },
          { field: 'density.concurrency', value: density.concurrency.length },
        ],
        limit: 'planned_trials',
      },
      { what: 'sandboxes in one batch', factors: [largest(density.concurrency, 'density.concurrency')], limit: 'concurrency' },
      ...(density.capacity_search ? [{ what: 'sandboxes in one capacity-search batch', factors: [{ field: 'density.capacity_search.max', value: density.capacity_search.max }], limit: 'concurrency' as const }] : []),
    ];
  },
});
