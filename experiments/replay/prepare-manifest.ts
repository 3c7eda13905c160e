/**
 * The manifest `sandbench replay prepare` writes (schema sandbench.replay-manifest/1). The audit
 * reads it back through this schema, so a field the audit relies on cannot silently go missing.
 */
import { z } from 'zod';
import { REPLAY_AGENTS } from './agents.ts';
import { ToolCallSchema } from './canonical-history.ts';

export const MANIFEST_SCHEMA = 'sandbench.replay-manifest/1';
export const RESULT_SCHEMA = 'sandbench.replay-result/1';
export const MANIFEST_FILE = 'manifest.json';
export const PREFIX_FILE = 'prefix.canonical.json';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const ReplayManifestSchema = z
  .object({
    schema: z.literal(MANIFEST_SCHEMA),
    preparer: z.object({ name: z.literal('sandbench'), version: z.string() }).strict(),
    agent: z.enum(REPLAY_AGENTS),
    recorded_version: z.string().nullable(),
    modelled_version: z.string(),
    source: z.object({ path: z.string(), sha256: sha256Hex, bytes: z.number().int().nonnegative() }).strict(),
    boundary: z
      .object({
        after_step: z.number().int().positive(),
        /** Calls in the boundary batch (the one ending the prefix). */
        tool_calls: z.number().int().nonnegative(),
        /** Messages kept, counting from the start of the history. */
        kept_messages: z.number().int().positive(),
        total_messages: z.number().int().positive(),
        total_batches: z.number().int().nonnegative(),
        /** Calls of the next assistant turn, left out of the prefix. */
        excluded_next_calls: z.number().int().nonnegative(),
      })
      .strict(),
    kept_calls: z.array(ToolCallSchema),
    kept_observations: z.array(
      z.object({ call_id: z.string(), output: z.string(), exit_code: z.number().int().nullable(), is_error: z.boolean().nullable() }).strict(),
    ),
    /** Always 0: preparing reads history, it never runs a tool. */
    replayed_tool_calls: z.literal(0),
    prefix: z.object({ file: z.literal(PREFIX_FILE), sha256: sha256Hex }).strict(),
  })
  .strict();
export type ReplayManifest = z.infer<typeof ReplayManifestSchema>;

/** The single stdout line of a successful `replay prepare`. */
export const PrepareResultSchema = z
  .object({
    schema: z.literal(RESULT_SCHEMA),
    status: z.literal('prepared'),
    manifest: z.string(),
    after_step: z.number().int(),
    tool_calls: z.number().int(),
    replayed_tool_calls: z.literal(0),
    failure: z.null(),
  })
  .strict();
export type PrepareResult = z.infer<typeof PrepareResultSchema>;
