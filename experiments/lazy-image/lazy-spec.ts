/** The lazy-image kind's spec section (`lazy:`): rounds and variants. */
import { z } from 'zod';
import { defineSection } from '../../harness/spec/kind-spec.ts';

export const LazySpecSchema = z
  .object({
    /** Formal rounds; default `trials`, so `--trials` overrides work for this kind too. */
    rounds: z.number().int().positive().optional(),
    initial_rounds: z.number().int().nonnegative().default(1),
    /** Warmup rounds after the initial ones; default `warmups`. */
    warmup_rounds: z.number().int().nonnegative().optional(),
    /** full/lazy: the Podman and httpfs2 clients; vm-full/vm-lazy: a qemu-microvm guest's image disk (vm-client.ts). */
    variants: z.array(z.enum(['full', 'lazy', 'vm-full', 'vm-lazy'])).min(1).default(['full', 'lazy']),
  })
  .strict();

export type LazySpec = z.output<typeof LazySpecSchema>;

export const lazySpecSection = defineSection({
  key: 'lazy',
  schema: LazySpecSchema,
});
