/**
 * The SandboxFusion-compatible `POST /run_code` server on 127.0.0.1: each request runs in a fresh
 * sandbox of one backend (sandbox-request.ts), at most `slots` at once, and gets one journal line.
 * Bad input never crashes it: a body that is not a RunCodeRequest gets HTTP 400 with SandboxFusion's
 * response shape (`status: SandboxError`, the message naming the field) — verl's client turns any
 * non-2xx into `api_error` (score −1) and logs the message; a language the image cannot run gets
 * HTTP 200 `SandboxError` (verl: `sandbox_error`, −1), as SandboxFusion answers a failed sandbox.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Executor, RunContext, RunningTrial } from '../../harness/contracts/executor.ts';
import { RUN_CODE_JOURNAL_SCHEMA, RunCodeJournal, type RunCodeJournalEntry, type RunCodeOutcome } from './journal.ts';
import type { LanguageSupport, VerlLanguage } from './languages.ts';
import { EMPTY_PHASES, runInFreshSandbox, type RequestPhases } from './sandbox-request.ts';
import { SandboxSlots } from './slots.ts';
import { describeRequestIssues, RunCodeRequestSchema, sandboxError, type RunCodeRequest, type RunCodeResponse } from './wire.ts';

/** Response header naming the request's journal line. */
export const REQUEST_ID_HEADER = 'x-sandbench-request-id';

/** verl's request bodies are a program and its stdin; anything larger is refused before it is buffered. */
const MAX_BODY_BYTES = 64 << 20;

export interface RunCodeServerOptions {
  executor: Executor;
  /** The run the sandboxes belong to (its image, cleanup registry, run id). */
  run: RunContext;
  languages: ReadonlyMap<VerlLanguage, LanguageSupport>;
  slots: number;
  /** 0 = any free port. Always bound to 127.0.0.1. */
  port: number;
  /** Per-request scratch directories go below it. */
  scratchDir: string;
  journalPath: string;
  /** Told of each sandbox as it launches: for a supervisor that must reach it (a watchdog, the kill test). */
  onSandbox?: (requestId: string, sandbox: RunningTrial) => void;
  /** Told of each journal line as it is written (the run-code kind joins them to its requests by request_id). */
  onJournal?: (entry: RunCodeJournalEntry) => void;
}

export interface RunCodeServer {
  readonly port: number;
  readonly url: string;
  /** Requests journalled so far, by outcome. */
  stats(): Record<string, number>;
  /**
   * Stop accepting and close the journal. In-flight requests are killed (their clients get SandboxError),
   * or with `drain` run to their end first (a client that gave up does not stop its sandbox: the
   * run-code kind drains, so the next cell never starts beside the last one's sandboxes).
   */
  close(options?: { drain?: boolean }): Promise<void>;
}

interface Served {
  http: number;
  response: RunCodeResponse;
  outcome: RunCodeOutcome;
  request: RunCodeRequest | null;
  queueWaitMs: number | null;
  phases: RequestPhases;
  error: string | null;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function refused(http: number, outcome: RunCodeOutcome, message: string, request: RunCodeRequest | null = null): Served {
  return { http, response: sandboxError(message), outcome, request, queueWaitMs: null, phases: EMPTY_PHASES, error: message };
}

export async function startRunCodeServer(options: RunCodeServerOptions): Promise<RunCodeServer> {
  const journal = new RunCodeJournal(options.journalPath);
  const slots = new SandboxSlots(options.slots);
  const inFlight = new Set<Promise<void>>();
  const running = new Set<RunningTrial>();
  const counts: Record<string, number> = {};
  let seq = 0;
  let closing = false;

  async function serve(body: Buffer, requestId: string, arrival: bigint): Promise<Served> {
    let parsedJson: unknown;
    try {
      parsedJson = JSON.parse(body.toString('utf8'));
    } catch (error) {
      return refused(400, 'bad_request', `request body is not JSON: ${(error as Error).message}`);
    }
    const parsed = RunCodeRequestSchema.safeParse(parsedJson);
    if (!parsed.success) return refused(400, 'bad_request', `not a RunCodeRequest: ${describeRequestIssues(parsed.error)}`);
    const request = parsed.data;
    const support = options.languages.get(request.language)!;
    if (!support.runs) return refused(200, 'language_unavailable', support.reason, request);
    await slots.acquire();
    const queueWaitMs = Number(process.hrtime.bigint() - arrival) / 1e6;
    try {
      if (closing) return { ...refused(503, 'service_closed', 'the run-code server is shutting down', request), queueWaitMs };
      const result = await runInFreshSandbox({
        executor: options.executor, run: options.run, requestDir: join(options.scratchDir, requestId), requestId, request, recipe: support.recipe,
        onRunning: (trial) => {
          running.add(trial);
          options.onSandbox?.(requestId, trial);
          void trial.exit.finally(() => running.delete(trial));
        },
      });
      return { http: 200, response: result.response, outcome: result.outcome, request, queueWaitMs, phases: result.phases, error: result.error };
    } finally {
      slots.release();
    }
  }

  function journalLine(requestSeq: number, requestId: string, wallArrival: string, arrival: bigint, served: Served): RunCodeJournalEntry {
    const { request } = served;
    return {
      schema: RUN_CODE_JOURNAL_SCHEMA, seq: requestSeq, request_id: requestId, wall_arrival: wallArrival, backend: options.executor.backend,
      language: request?.language ?? null, queue_wait_ms: served.queueWaitMs, ...served.phases, total_ms: Number(process.hrtime.bigint() - arrival) / 1e6,
      outcome: served.outcome, response_status: served.response.status, http_status: served.http, return_code: served.response.run_result?.return_code ?? null, error: served.error,
      request: request ? { code: request.code, language: request.language, stdin: request.stdin, run_timeout: request.run_timeout, compile_timeout: request.compile_timeout, memory_limit_MB: request.memory_limit_MB } : null,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrival = process.hrtime.bigint();
    const wallArrival = new Date().toISOString();
    const requestSeq = ++seq;
    const requestId = `rc${String(requestSeq).padStart(6, '0')}`;
    let served: Served;
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/run_code') {
      req.resume();
      served = refused(404, 'bad_request', `${req.method} ${req.url}: this server answers POST /run_code only`);
    } else if (closing) {
      req.resume();
      served = refused(503, 'service_closed', 'the run-code server is shutting down');
    } else {
      try {
        served = await serve(await readBody(req), requestId, arrival);
      } catch (error) {
        served = refused(500, 'sandbox_error', `sandbench: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    const payload = JSON.stringify(served.response);
    res.writeHead(served.http, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), [REQUEST_ID_HEADER]: requestId });
    res.end(payload);
    const entry = journalLine(requestSeq, requestId, wallArrival, arrival, served);
    journal.append(entry);
    options.onJournal?.(entry);
    counts[served.outcome] = (counts[served.outcome] ?? 0) + 1;
  }

  const server: Server = createServer((req, res) => {
    const work = handle(req, res).catch(() => undefined);
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/run_code`,
    stats: () => ({ ...counts }),
    async close(closeOptions = {}) {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (closeOptions.drain) await Promise.all([...inFlight]);
      closing = true;
      // A kill that fails (an engine refusing to remove a busy container) must not lose the requests: each one's finishTrial still runs and journals its teardown error.
      await Promise.all([...running].map((trial) => trial.kill('run-code server closing').catch(() => undefined)));
      await Promise.all([...inFlight]);
      server.closeAllConnections();
      await stopped;
      journal.close();
    },
  };
}
