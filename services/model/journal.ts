/**
 * The model-traffic journal: one JSON line per request the service saw, written with writeSync
 * as soon as the request is done (so a crashed harness keeps every finished entry: the bytes are
 * in the kernel) and fsynced off the event loop (a blocking fsync would stall other replies'
 * paced streams and perturb the very timings the journal records); close() fsyncs synchronously.
 */
import { closeSync, fsync, fsyncSync, openSync, writeSync } from 'node:fs';
import type { Protocol } from './request-view.ts';
import type { ReplyKind, ScriptFailure } from './decide.ts';

export const MODEL_JOURNAL_SCHEMA = 'sandbench-model-journal/1';

export type Endpoint = Protocol | 'head' | 'models' | 'count_tokens' | 'unknown';

export type EntryStatus = 'ok' | 'client_closed' | 'bad_request' | ScriptFailure | 'not_found' | 'service_closed';

export interface ModelJournalEntry {
  schema: typeof MODEL_JOURNAL_SCHEMA;
  /** Order of arrival at the service (1-based). */
  seq: number;
  /** Host monotonic clock (process.hrtime.bigint(), ns, as decimal strings: beyond 2^53). */
  t_arrival_ns: string;
  /** Body read and (for generation requests) the reply decided: the request joins the FIFO queue. */
  t_enqueued_ns: string;
  t_service_start_ns: string | null;
  t_service_end_ns: string | null;
  wall_arrival: string;
  queue_wait_ms: number | null;
  service_ms: number | null;
  method: string;
  path: string;
  endpoint: Endpoint;
  stream: boolean | null;
  model: string | null;
  script_id: string;
  task_id: string | null;
  /** Script turn that answered (tool results in the request); null for side replies and errors before a turn. */
  turn: number | null;
  reply: ReplyKind | null;
  tool_name: string | null;
  tool_results: number | null;
  tokens: number | null;
  http_status: number;
  status: EntryStatus;
  error: string | null;
  request_bytes: number;
  request_sha256: string;
  response_bytes: number;
  response_sha256: string;
  user_agent: string | null;
}

/** Entry fields that carry time; everything else is a deterministic function of the script and the requests. */
export const TIMING_FIELDS = ['t_arrival_ns', 't_enqueued_ns', 't_service_start_ns', 't_service_end_ns', 'wall_arrival', 'queue_wait_ms', 'service_ms'] as const;

export class ModelJournal {
  private fd: number | null;
  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }
  append(entry: ModelJournalEntry): void {
    if (this.fd === null) throw new Error(`${this.path}: model journal already closed`);
    writeSync(this.fd, `${JSON.stringify(entry)}\n`);
    fsync(this.fd, () => undefined);
  }
  close(): void {
    if (this.fd === null) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}
