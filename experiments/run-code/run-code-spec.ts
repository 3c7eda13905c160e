/**
 * The run-code kind's spec section (`run_code:`): which request stream to replay, at which client
 * concurrencies (verl's reward.sandbox_fusion.max_concurrent; its default is 64), and how many
 * requests each cell sends. Blocks are the spec's `trials` (formal) and `warmups`.
 */
import { z } from 'zod';
import { defineSection, readSection } from '../../harness/spec/kind-spec.ts';
import type { Spec } from '../../harness/spec/schema.ts';

export const RunCodeSpecSchema = z
  .object({
    /** A request stream (JSONL): generated (experiments/run-code/generate-stream.ts) or a `serve run-code` journal. Relative to the spec file (or a shipped `data/run-code/` file). */
    stream: z.string().min(1),
    /** Client concurrencies: C requests in flight, as verl's semaphore allows. */
    concurrency: z.array(z.number().int().min(1).max(256)).min(1).default([1, 8, 64]),
    /** Requests per cell per block: request k of every cell is the same stream entry, so cells pair. */
    requests: z.number().int().min(1).max(4096).default(64),
    /** Sandboxes the server runs at once; default: the cell's concurrency (no server-side queue). */
    slots: z.number().int().min(1).max(256).optional(),
  })
  .strict();

export type RunCodeSpec = z.output<typeof RunCodeSpecSchema>;

export const runCodeSection = defineSection({ key: 'run_code', schema: RunCodeSpecSchema, paths: (section, resolvePath) => ({ ...section, stream: resolvePath(section.stream) }) });

export function runCodeOptions(spec: Spec): RunCodeSpec {
  return readSection(spec, runCodeSection);
}
