/** The isolation kind's spec section (`isolation:`): which fixture placements every block runs. */
import { z } from 'zod';
import { defineSection } from '../../harness/spec/kind-spec.ts';

/** Where an isolation trial's fixtures sit relative to $HOME (a recorded control; experiments/isolation/isolation-placement.ts). */
export const FIXTURE_PLACEMENTS = ['outside-home', 'inside-home'] as const;

export const IsolationSpecSchema = z
  .object({
    /** Every arm runs once per placement in each block; `outside-home` is the protocol's (published) placement. */
    placements: z
      .array(z.enum(FIXTURE_PLACEMENTS, { message: `expected one of ${FIXTURE_PLACEMENTS.join(', ')}` }))
      .min(1)
      .refine((list) => new Set(list).size === list.length, 'a placement is listed twice')
      .default(['outside-home']),
  })
  .strict();

export type IsolationSpec = z.output<typeof IsolationSpecSchema>;

export const isolationSpecSection = defineSection({
  key: 'isolation',
  schema: IsolationSpecSchema,
});
