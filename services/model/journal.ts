/**
 * The model-traffic journal: one JSON line per request the service saw, written with writeSync
 * as soon as the request is done (so a crashed harness keeps every finished entry: the bytes are
 * in the kernel) and fsynced off the event loop (a blocking fsync would stall other replies'
 * paced streams and perturb the very timings the journal records); close() fsyncs synchronously.
 */
import { existsSync, readFileSync } from 'node:fs';
import { JsonlWriter } from '../../harness/journal/jsonl-writer.ts';
import { z } from 'zod';
import type { ReplyKind, ScriptFailure } from './decide.ts';

export const MODEL_JOURNAL_SCHEMA = 'sandbench-model-journal/1';


const nsString = z.string().regex(/^\d+$/);

/** One journal line; the schema is the contract kinds read (readModelJournal validates every line). */
export const ModelJournalEntrySchema = z
  .object({
    schema: z.literal(MODEL_JOURNAL_SCHEMA),
    /** Order of arrival at the service (1-based). */
    seq: z.number().int().min(1),
    /** Host monotonic clock (process.hrtime.bigint(), ns, as decimal strings: beyond 2^53). */
    t_arrival_ns: nsString,
    /** Body read and (for generation requests) the reply decided: the request joins the FIFO queue. */
    t_enqueued_ns: nsString,
    t_service_start_ns: nsString.nullable(),
    t_service_end_ns: nsString.nullable(),
    /** Where the capacity schedule put its start (a handed-over slot's due end, or its queue entry if later; a free slot: its start): deadlines count from here. */
    t_scheduled_start_ns: nsString.nullable(),
    /** When the reply was due to end: scheduled start + base_ms + per_token_ms × tokens. Lateness = t_service_end_ns − this. */
    t_due_end_ns: nsString.nullable(),
    wall_arrival: z.string(),
    queue_wait_ms: z.number().nullable(),
    service_ms: z.number().nullable(),
    method: z.string(),
    path: z.string(),
    endpoint: z.enum(['responses', 'chat', 'anthropic', 'head', 'models', 'count_tokens', 'unknown']),
    stream: z.boolean().nullable(),
    model: z.string().nullable(),
    script_id: z.string(),
    task_id: z.string().nullable(),
    /** Attempt named by the URL prefix /a/<attempt-id>/ (null without one). */
    attempt: z.string().nullable(),
    /** Script turn that answered (tool results in the request); null for side replies and errors before a turn. */
    turn: z.number().int().nullable(),
    reply: z.enum(['tool', 'text', 'submit', 'side', 'fail']).nullable(),
    tool_name: z.string().nullable(),
    tool_results: z.number().int().nullable(),
    tokens: z.number().int().nullable(),
    /** Requests waiting for a slot right after this one joined the queue (itself included; 0 = served at once); null if it never queued. */
    queue_depth: z.number().int().min(0).nullable(),
    http_status: z.number().int(),
    status: z.enum(['ok', 'client_closed', 'bad_request', 'no_task_matched', 'tool_mismatch', 'script_exhausted', 'not_found', 'service_closed', 'injected_error']),
    error: z.string().nullable(),
    request_bytes: z.number().int(),
    request_sha256: z.string(),
    response_bytes: z.number().int(),
    response_sha256: z.string(),
    user_agent: z.string().nullable(),
  })
  .strict();

export type ModelJournalEntry = z.infer<typeof ModelJournalEntrySchema>;
export type Endpoint = ModelJournalEntry['endpoint'];
export type EntryStatus = ModelJournalEntry['status'];

// the schema's enums and the code's unions must not drift apart
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const replyKindsMatch: Same<NonNullable<ModelJournalEntry['reply']>, ReplyKind> = true;
const statusesMatch: Same<Exclude<EntryStatus, ScriptFailure>, 'ok' | 'client_closed' | 'bad_request' | 'not_found' | 'service_closed' | 'injected_error'> = true;
void replyKindsMatch;
void statusesMatch;

/** Entry fields that carry time; everything else is a deterministic function of the script and the requests. */
export const TIMING_FIELDS = ['t_arrival_ns', 't_enqueued_ns', 't_service_start_ns', 't_service_end_ns', 't_scheduled_start_ns', 't_due_end_ns', 'wall_arrival', 'queue_wait_ms', 'service_ms'] as const;

/** The journal file: one fsynced JSON line per entry (harness/journal/jsonl-writer.ts). */
export class ModelJournal extends JsonlWriter<ModelJournalEntry> {
  constructor(path: string) {
    super(path, 'model journal');
  }
}

export interface ModelJournalContents {
  entries: ModelJournalEntry[];
  /** A last line cut short by a crash mid-write: dropped, with this warning. */
  tornTail: string | null;
}

/** Read a model journal (a kind's analysis: time to first model request, model wait per rollout). A bad line in the middle throws naming it. */
export function readModelJournal(path: string): ModelJournalContents {
  if (!existsSync(path)) return { entries: [], tornTail: null };
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const entries: ModelJournalEntry[] = [];
  let tornTail: string | null = null;
  lines.forEach((line, index) => {
    if (line === '') return;
    try {
      entries.push(ModelJournalEntrySchema.parse(JSON.parse(line)));
    } catch (error) {
      if (index === lines.length - 1 && !text.endsWith('\n')) {
        tornTail = `${path}: dropped a torn last line (${line.length} bytes) left by an interrupted write`;
        return;
      }
      throw new Error(`${path}: line ${index + 1} is not a model journal entry: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  });
  return { entries, tornTail };
}
