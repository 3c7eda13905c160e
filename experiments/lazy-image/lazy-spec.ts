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
  // Each round launches every variant cold, then warm (lazy-plan.ts); absent rounds default to trials/warmups.
  expansion: (lazy) =>
    (
      [
        ['lazy.rounds', lazy.rounds],
        ['lazy.warmup_rounds', lazy.warmup_rounds],
        ['lazy.initial_rounds', lazy.initial_rounds],
      ] as const
    ).flatMap(([field, rounds]) =>
      rounds === undefined
        ? []
        : [{ what: 'planned launches', factors: [{ field, value: rounds }, { field: 'lazy.variants', value: lazy.variants.length }, { field: 'cold and warm', value: 2 }], limit: 'planned_trials' as const }],
    ),
});
