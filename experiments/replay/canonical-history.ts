/**
 * The canonical history (docs/canonical-history.md): one agent-neutral, versioned representation of a
 * tool-using conversation that every native format parses into. Bump CANONICAL_SCHEMA on any
 * incompatible change; readers refuse schemas they do not know.
 */
import { z } from 'zod';
import { REPLAY_AGENTS } from './agents.ts';

export const CANONICAL_SCHEMA = 'sandbench.canonical-history/1';

const CallBase = {
  /** The native call id (tool_use id, call_id, callID, toolCallId, action event id...). */
  id: z.string().min(1),
  /** The tool's native name (Bash, exec_command, bash, run...), kept for round trips. */
  native_name: z.string().min(1),
};

export const ToolCallSchema = z.discriminatedUnion('kind', [
  /** A shell command, the one tool every agent has; `command` is byte-exact. */
  z.object({ ...CallBase, kind: z.literal('shell'), command: z.string() }).strict(),
  /** Any other tool (file edit, read, search): native arguments kept as recorded. */
  z.object({ ...CallBase, kind: z.literal('other'), arguments: z.unknown() }).strict(),
]);

const NativeRef = z.string().min(1).describe('where in the native file this came from, e.g. "line 3" or "messages[2]"');

export const CanonicalMessageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), text: z.string(), native_ref: NativeRef }).strict(),
  z.object({ role: z.literal('user'), text: z.string(), native_ref: NativeRef }).strict(),
  z
    .object({
      role: z.literal('assistant'),
      /** Visible text (or thought) of the turn; null when the turn had none. */
      text: z.string().nullable(),
      tool_calls: z.array(ToolCallSchema),
      native_ref: NativeRef,
    })
    .strict(),
  z
    .object({
      role: z.literal('tool'),
      call_id: z.string().min(1),
      /** The observation exactly as recorded. */
      output: z.string(),
      /** Exit status where the native format records one; null where it does not (never 0 by default). */
      exit_code: z.number().int().nullable(),
      /** Error flag where the format records one; null otherwise. */
      is_error: z.boolean().nullable(),
      native_ref: NativeRef,
    })
    .strict(),
]);

export const CanonicalHistorySchema = z
  .object({
    schema: z.literal(CANONICAL_SCHEMA),
    source: z
      .object({
        agent: z.enum(REPLAY_AGENTS),
        /** Version recorded in the file (agent or trajectory format); null when the format has none. */
        recorded_version: z.string().nullable(),
        /** The release whose shape the parser models. */
        modelled_version: z.string(),
        session_id: z.string().nullable(),
      })
      .strict(),
    messages: z.array(CanonicalMessageSchema),
  })
  .strict();

export type ToolCall = z.infer<typeof ToolCallSchema>;
export type CanonicalMessage = z.infer<typeof CanonicalMessageSchema>;
export type CanonicalHistory = z.infer<typeof CanonicalHistorySchema>;
export type AssistantMessage = Extract<CanonicalMessage, { role: 'assistant' }>;
export type ToolMessage = Extract<CanonicalMessage, { role: 'tool' }>;
