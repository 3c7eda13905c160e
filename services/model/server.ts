/**
 * The model service's HTTP side: routing, the capacity queue, paced streaming and the journal.
 * One handler serves both listeners (the Unix socket and the optional 127.0.0.1 port).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decide, ScriptReplyError, type Decision } from './decide.ts';
import { MODEL_JOURNAL_SCHEMA, type Endpoint, type EntryStatus, type ModelJournal, type ModelJournalEntry } from './journal.ts';
import { SlotQueue } from './capacity.ts';
import { BadRequestError, viewRequest, type Protocol, type RequestView } from './request-view.ts';
import type { RequestBodies } from './request-bodies.ts';
import type { ModelScript } from './script.ts';
import { renderAnthropic } from './wire/anthropic.ts';
import { renderChat } from './wire/chat.ts';
import { CREATED_AT, type Rendered } from './wire/frames.ts';
import { renderResponses } from './wire/responses.ts';

export interface Timing {
  baseMs: number;
  perTokenMs: number;
}

export interface ServiceStats {
  slots: number;
  /** Since the service started (host monotonic), for utilization = busySlotMs ÷ (slots × uptimeMs). */
  uptimeMs: number;
  requests: number;
  /** Generation requests answered with a scripted reply in full. */
  generations: number;
  /** Requests by journal status. */
  byStatus: Record<string, number>;
  /** Sum of service time over generation requests (busy slot-time, for utilization = busy ÷ (slots × wall)). */
  busySlotMs: number;
  queueWaitMsTotal: number;
  maxQueued: number;
  /** In service / waiting now; null when not observable (a service in another process: stats come from its journal). */
  active: number | null;
  queued: number | null;
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/**
 * The path a client used, without the optional routing prefix `/t/<task-id>` (which script task
 * answers) and `/a/<attempt-id>` (which trial or rollout attempt sent it, recorded in the journal
 * so one run-wide service's traffic splits per attempt). Either may be absent; /t comes first.
 */
export function splitRoutePrefix(url: string): { task: string | null; attempt: string | null; path: string } {
  let path = url.split('?')[0] ?? '/';
  let task: string | null = null;
  let attempt: string | null = null;
  const taskMatch = /^\/t\/([^/]+)(\/.*)?$/.exec(path);
  if (taskMatch) {
    task = decodeURIComponent(taskMatch[1]);
    path = taskMatch[2] ?? '/';
  }
  const attemptMatch = /^\/a\/([^/]+)(\/.*)?$/.exec(path);
  if (attemptMatch) {
    attempt = decodeURIComponent(attemptMatch[1]);
    path = attemptMatch[2] ?? '/';
  }
  return { task, attempt, path };
}

function endpointOf(method: string, path: string): Endpoint {
  if (method === 'HEAD') return 'head';
  if (method === 'GET' && /\/models(\/[^/]+)?$/.test(path)) return 'models';
  if (method !== 'POST') return 'unknown';
  if (path.endsWith('/messages/count_tokens')) return 'count_tokens';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/chat/completions')) return 'chat';
  if (path.endsWith('/messages')) return 'anthropic';
  return 'unknown';
}

/** Error body in the protocol's own shape, so each client shows the message. */
function errorBody(protocol: Protocol | null, category: string, message: string): string {
  const text = `sandbench model service: ${message}`;
  if (protocol === 'anthropic') return JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: text, sandbench_category: category } });
  return JSON.stringify({ error: { message: text, type: 'invalid_request_error', code: category, param: null } });
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => resolve(Buffer.concat(chunks))); // a client gone mid-body: what arrived
  });
}

export interface HandlerDeps {
  script: ModelScript;
  timing: Timing;
  queue: SlotQueue;
  journal: ModelJournal | null;
  /** Generation request bodies (request-bodies.ts), when the service was asked to keep them. */
  bodies?: RequestBodies | null;
  log: (line: string) => void;
  /** Aborted when the service closes: pending waits end at once. */
  closing: AbortSignal;
}

/**
 * Sleep until a host-monotonic deadline; deadlines are absolute, so pacing error never accumulates.
 * Never early: libuv timers run on a loop clock cached per iteration and can fire a little before
 * the hrtime deadline, so the wait re-arms until hrtime has passed it (the last < 1 ms on setImmediate).
 */
function sleepUntil(deadlineNs: bigint, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
    const done = () => {
      if (timer !== null) {
        clearTimeout(timer as NodeJS.Timeout);
        clearImmediate(timer as NodeJS.Immediate);
      }
      signal.removeEventListener('abort', done);
      resolve();
    };
    const arm = () => {
      const remainingMs = Number(deadlineNs - process.hrtime.bigint()) / 1e6;
      if (remainingMs <= 0 || signal.aborted) return done();
      timer = remainingMs >= 1 ? setTimeout(arm, remainingMs) : setImmediate(arm);
    };
    signal.addEventListener('abort', done);
    arm();
  });
}

export function createHandler(deps: HandlerDeps) {
  let seq = 0;
  const startedNs = process.hrtime.bigint();
  const stats: ServiceStats = { slots: deps.queue.slots, uptimeMs: 0, requests: 0, generations: 0, byStatus: {}, busySlotMs: 0, queueWaitMsTotal: 0, maxQueued: 0, active: 0, queued: 0 };

  function render(protocol: Protocol, view: RequestView, decision: Decision, requestDigest: string, requestBytes: number): Rendered {
    const ctx = {
      decision,
      idStem: sha256(`${deps.script.id}\n${decision.taskId}\n${decision.turn}\n${requestDigest}`).slice(0, 24),
      model: view.model,
      inputTokens: Math.max(1, Math.ceil(requestBytes / 4)),
      includeUsage: view.includeUsage,
    };
    if (protocol === 'responses') return renderResponses(ctx, view.stream);
    if (protocol === 'chat') return renderChat(ctx, view.stream);
    return renderAnthropic(ctx, view.stream);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const tArrival = process.hrtime.bigint();
    const wallArrival = new Date().toISOString();
    seq += 1;
    stats.requests += 1;
    const entry: ModelJournalEntry = {
      schema: MODEL_JOURNAL_SCHEMA,
      seq,
      t_arrival_ns: tArrival.toString(),
      t_enqueued_ns: tArrival.toString(),
      t_service_start_ns: null,
      t_service_end_ns: null,
      t_scheduled_start_ns: null,
      t_due_end_ns: null,
      wall_arrival: wallArrival,
      queue_wait_ms: null,
      service_ms: null,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      endpoint: 'unknown',
      stream: null,
      model: null,
      script_id: deps.script.id,
      task_id: null,
      attempt: null,
      turn: null,
      reply: null,
      tool_name: null,
      tool_results: null,
      tokens: null,
      queue_depth: null,
      http_status: 0,
      status: 'ok',
      error: null,
      request_bytes: 0,
      request_sha256: '',
      response_bytes: 0,
      response_sha256: '',
      user_agent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
    };
    let clientClosed = false;
    // ends this reply's paced waits when its client leaves or the service closes, freeing the slot at once
    const stop = new AbortController();
    const onClosing = () => stop.abort();
    deps.closing.addEventListener('abort', onClosing);
    res.on('close', () => {
      deps.closing.removeEventListener('abort', onClosing);
      if (!res.writableFinished) {
        clientClosed = true;
        stop.abort();
      }
    });
    const body = await readBody(req).catch(() => Buffer.alloc(0));
    // replaced by the time a generation request joins the queue (after its reply is decided)
    let tEnqueued = process.hrtime.bigint();
    entry.t_enqueued_ns = tEnqueued.toString();
    entry.request_bytes = body.length;
    entry.request_sha256 = sha256(body);
    const { task: pathTask, attempt, path } = splitRoutePrefix(entry.path);
    entry.attempt = attempt;
    const endpoint = endpointOf(entry.method, path);
    entry.endpoint = endpoint;
    if (deps.bodies && (endpoint === 'responses' || endpoint === 'chat' || endpoint === 'anthropic')) deps.bodies.append({ seq: entry.seq, attempt, endpoint, request_sha256: entry.request_sha256, body: body.toString('utf8') });
    const written: string[] = [];

    const finish = (status: EntryStatus, httpStatus: number) => {
      entry.status = clientClosed && status === 'ok' ? 'client_closed' : status;
      entry.http_status = httpStatus;
      const response = written.join('');
      entry.response_bytes = Buffer.byteLength(response);
      entry.response_sha256 = sha256(response);
      stats.byStatus[entry.status] = (stats.byStatus[entry.status] ?? 0) + 1;
      deps.journal?.append(entry);
    };
    const reply = (httpStatus: number, contentType: string, text: string, headers: Record<string, string> = {}) => {
      written.push(text);
      res.writeHead(httpStatus, { 'content-type': contentType, 'content-length': String(Buffer.byteLength(text)), ...headers });
      res.end(text);
    };
    const immediateTimes = () => {
      const now = process.hrtime.bigint();
      entry.t_service_start_ns = tEnqueued.toString();
      entry.t_service_end_ns = now.toString();
      entry.queue_wait_ms = 0;
      entry.service_ms = msBetween(tEnqueued, now);
    };

    if (endpoint === 'head') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end();
      immediateTimes();
      return finish('ok', 200);
    }
    if (endpoint === 'models') {
      const data = deps.script.models.map((id) => ({ id, object: 'model', type: 'model', created: CREATED_AT, created_at: '2025-12-01T00:00:00Z', owned_by: 'sandbench', display_name: id }));
      const named = /\/models\/([^/]+)$/.exec(path);
      const payload = named ? (data.find((model) => model.id === decodeURIComponent(named[1])) ?? { ...data[0], id: decodeURIComponent(named[1]), display_name: decodeURIComponent(named[1]) }) : { object: 'list', data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null };
      reply(200, 'application/json', JSON.stringify(payload));
      immediateTimes();
      return finish('ok', 200);
    }
    if (endpoint === 'count_tokens') {
      reply(200, 'application/json', JSON.stringify({ input_tokens: Math.max(1, Math.ceil(body.length / 4)) }));
      immediateTimes();
      return finish('ok', 200);
    }
    if (endpoint === 'unknown') {
      deps.log(`model service: rejected ${entry.method} ${entry.path} (no such endpoint)`);
      entry.error = `no endpoint ${entry.method} ${path}`;
      reply(404, 'application/json', errorBody(null, 'not_found', `no endpoint ${entry.method} ${path}; it answers POST …/responses, POST …/chat/completions, POST …/messages, POST …/messages/count_tokens, GET …/models and HEAD on any path`));
      immediateTimes();
      return finish('not_found', 404);
    }

    const protocol: Protocol = endpoint;
    let view: RequestView;
    let decision: Decision;
    try {
      view = viewRequest(protocol, body);
      entry.stream = view.stream;
      entry.model = view.model;
      entry.tool_results = view.toolResults;
      decision = decide(deps.script, view, pathTask);
    } catch (error) {
      if (!(error instanceof BadRequestError || error instanceof ScriptReplyError)) throw error;
      const category = error instanceof ScriptReplyError ? error.category : 'bad_request';
      if (error instanceof ScriptReplyError) {
        entry.task_id = error.taskId;
        entry.turn = error.turn;
      }
      entry.error = error.message;
      deps.log(`model service: ${category}: ${error.message}`);
      // a script mismatch is the same on every retry: tell the client's SDK not to retry
      reply(400, 'application/json', errorBody(protocol, category, error.message), { 'x-sandbench-error': category, 'x-should-retry': 'false' });
      immediateTimes();
      return finish(category, 400);
    }
    entry.task_id = decision.taskId;
    entry.turn = decision.turn;
    entry.reply = decision.reply.kind;
    entry.tool_name = 'toolName' in decision.reply ? decision.reply.toolName : null;
    entry.tokens = decision.tokens;

    tEnqueued = process.hrtime.bigint();
    entry.t_enqueued_ns = tEnqueued.toString();
    if (clientClosed) return finish('client_closed', 0); // gone before it could queue: it costs no slot
    const ticket = deps.queue.acquire();
    entry.queue_depth = deps.queue.queued;
    stats.maxQueued = Math.max(stats.maxQueued, deps.queue.queued);
    const onClose = () => ticket.cancel();
    res.once('close', onClose);
    const grant = await ticket.granted;
    res.off('close', onClose);
    if (!grant.granted) {
      const status: EntryStatus = deps.closing.aborted ? 'service_closed' : 'client_closed';
      if (!res.headersSent && !res.destroyed) reply(503, 'application/json', errorBody(protocol, status, 'the service is closing'));
      return finish(status, 503);
    }
    const tStart = process.hrtime.bigint();
    entry.t_service_start_ns = tStart.toString();
    entry.queue_wait_ms = msBetween(tEnqueued, tStart);
    stats.queueWaitMsTotal += entry.queue_wait_ms;
    // deadlines count from the schedule: the handed-over slot's due end (or this request's queue entry, if later);
    // a slot that was free, or freed early by a reply cut short, is free from now
    const scheduledNs = grant.handoffDueNs === null ? tStart : grant.handoffDueNs > tEnqueued ? grant.handoffDueNs : tEnqueued;
    entry.t_scheduled_start_ns = scheduledNs.toString();
    const baseNs = scheduledNs + BigInt(Math.round(deps.timing.baseMs * 1e6));
    const perTokenNs = deps.timing.perTokenMs * 1e6;
    const dueNs = (tokenIndex: number) => baseNs + BigInt(Math.round((tokenIndex + 1) * perTokenNs));
    const dueEndNs = decision.tokens > 0 ? dueNs(decision.tokens - 1) : baseNs;
    entry.t_due_end_ns = dueEndNs.toString();
    if (decision.reply.kind === 'fail') {
      await sleepUntil(baseNs, stop.signal);
      const tEnd = process.hrtime.bigint();
      deps.queue.release(stop.signal.aborted ? null : dueEndNs);
      entry.t_service_end_ns = tEnd.toString();
      entry.service_ms = msBetween(tStart, tEnd);
      stats.busySlotMs += entry.service_ms;
      entry.error = decision.reply.message;
      if (!stop.signal.aborted) reply(decision.reply.status, 'application/json', errorBody(protocol, 'injected_error', decision.reply.message), { 'x-sandbench-error': 'injected_error', 'x-should-retry': String(decision.reply.retry) });
      return finish(stop.signal.aborted ? (deps.closing.aborted ? 'service_closed' : 'client_closed') : 'injected_error', decision.reply.status);
    }
    try {
      const rendered = render(protocol, view, decision, entry.request_sha256, body.length);
      const requestId = `req_${sha256(`${entry.request_sha256}\n${decision.taskId}\n${decision.turn}`).slice(0, 24)}`;
      const headers: Record<string, string> = { 'content-type': rendered.contentType, 'request-id': requestId, 'x-request-id': requestId };
      if (rendered.contentType === 'text/event-stream') headers['cache-control'] = 'no-cache';
      res.writeHead(rendered.status, headers);
      for (const frame of rendered.frames) {
        if (frame.tokenIndex !== null) await sleepUntil(dueNs(frame.tokenIndex), stop.signal);
        if (stop.signal.aborted || res.destroyed) break;
        written.push(frame.data);
        res.write(frame.data);
      }
      // the reply occupies its slot for its full service time even if its last frame was early
      await sleepUntil(dueEndNs, stop.signal);
      // the slot is free once the last byte is handed to the socket: a client slow to read its
      // buffer must not stretch the controlled service time (nor hold the slot if it died mid-end)
      if (!res.destroyed) res.end();
    } finally {
      const tEnd = process.hrtime.bigint();
      // a reply cut short (client gone, closing) freed its slot early: the next one starts from now, not from a due time in the future
      deps.queue.release(stop.signal.aborted ? null : dueEndNs);
      entry.t_service_end_ns = tEnd.toString();
      entry.service_ms = msBetween(tStart, tEnd);
      stats.busySlotMs += entry.service_ms;
    }
    const completed = !clientClosed && !deps.closing.aborted;
    if (completed) stats.generations += 1;
    finish(completed ? 'ok' : deps.closing.aborted ? 'service_closed' : 'client_closed', 200);
  }

  return {
    /** Resolves once the request's journal entry is written (close() waits for these). */
    handle: (req: IncomingMessage, res: ServerResponse): Promise<void> =>
      handle(req, res).catch((error: unknown) => {
        deps.log(`model service: internal error on ${req.method} ${req.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(errorBody(null, 'internal_error', 'internal error (see the service log)'));
      }),
    stats: (): ServiceStats => ({ ...stats, uptimeMs: msBetween(startedNs, process.hrtime.bigint()), byStatus: { ...stats.byStatus }, maxQueued: Math.max(stats.maxQueued, deps.queue.maxQueued), active: deps.queue.active, queued: deps.queue.queued }),
  };
}
