/**
 * The run-code journal: one JSON line per /run_code request, written with writeSync when the request
 * ends and fsynced off the event loop (as the model journal: a crash keeps every finished line, and a
 * blocking fsync would delay the other requests being timed); close() fsyncs synchronously. The
 * request's stream fields (code, stdin, language, timeouts) are kept so the run-code kind can replay
 * a recorded journal as its request stream.
 */
import { JsonlWriter } from '../../harness/journal/jsonl-writer.ts';
import { z } from 'zod';

export const RUN_CODE_JOURNAL_SCHEMA = 'sandbench-run-code-journal/1';

export const RUN_CODE_OUTCOMES = ['finished', 'runtime_error', 'timeout', 'compile_error', 'compile_timeout', 'sandbox_error', 'sandbox_killed', 'language_unavailable', 'bad_request', 'service_closed'] as const;

export const RunCodeJournalEntrySchema = z
  .object({
    schema: z.literal(RUN_CODE_JOURNAL_SCHEMA),
    seq: z.number().int().min(1),
    request_id: z.string(),
    wall_arrival: z.string(),
    backend: z.string(),
    language: z.string().nullable(),
    /** Arrival → a sandbox slot (the server runs --slots sandboxes at once; the rest wait in FIFO order). */
    queue_wait_ms: z.number().nullable(),
    /** Writing and staging the request's workspace. */
    stage_ms: z.number().nullable(),
    /** Sandbox launch → the in-sandbox runner about to start the program. */
    sandbox_start_ms: z.number().nullable(),
    /** A compiled language's compile step (the runner's clock); absent in journals written before the compile step, null for interpreted languages. */
    compile_ms: z.number().nullable().optional(),
    /** The program's own run time (the runner's clock); null when it never ran (a failed compile). */
    run_ms: z.number().nullable(),
    /** Sandbox launch → its exit. */
    sandbox_ms: z.number().nullable(),
    collect_ms: z.number().nullable(),
    /** finishTrial and scratch removal. */
    teardown_ms: z.number().nullable(),
    /** Arrival → response written. */
    total_ms: z.number(),
    /** The program's peak RSS (wait4 of the program's step: its own process tree, not the compiler's), KiB. */
    peak_rss_kib: z.number().nullable(),
    outcome: z.enum(RUN_CODE_OUTCOMES),
    response_status: z.enum(['Success', 'Failed', 'SandboxError']),
    http_status: z.number().int(),
    return_code: z.number().int().nullable(),
    error: z.string().nullable(),
    /** The request as received (null for a body that was not a request), for replay. */
    request: z
      .object({ code: z.string(), language: z.string(), stdin: z.string().nullable(), run_timeout: z.number(), compile_timeout: z.number(), memory_limit_MB: z.number() })
      .nullable(),
  })
  .strict();

export type RunCodeJournalEntry = z.infer<typeof RunCodeJournalEntrySchema>;
export type RunCodeOutcome = RunCodeJournalEntry['outcome'];

/** The journal file: one fsynced JSON line per entry (harness/journal/jsonl-writer.ts). */
export class RunCodeJournal extends JsonlWriter<RunCodeJournalEntry> {
  constructor(path: string) {
    super(path, 'run-code journal');
  }
}
