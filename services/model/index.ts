/**
 * The deterministic model service (`sandbench model serve`), for kinds that run agent CLIs.
 *
 * API
 *   const service = await startModelService({
 *     script,              // a ModelScript (parseModelScript(value, name)) or a path to a .yaml/.json script
 *     socketDir,           // listen on <socketDir>/model.sock (mode 0777) — in a short directory when that path
 *                          //   would not fit a socket address (harness/run/socket-path.ts); or socketPath: exact path
 *     port,                // optional: also 127.0.0.1:port (0 = any free port; see service.port)
 *     slots: 2,            // concurrent requests in service; the rest wait FIFO (default 4)
 *     baseMs: 50,          // service time = baseMs + perTokenMs × tokens of the scripted reply
 *     perTokenMs: 2,       //   (streamed: token i is due at scheduled start + baseMs + (i+1) × perTokenMs;
 *                          //   a handed-over slot is scheduled at its previous reply's due end, so
 *                          //   lateness never accumulates along the queue: capacity.ts)
 *     journalPath,         // JSONL model-traffic journal; default <socketDir>/model-journal.jsonl
 *                          //   (kinds: join(bundleDir, MODEL_JOURNAL_FILE), so it is part of the bundle)
 *     log: (line) => …,    // rejected and failed requests (default: silent; the journal has them all)
 *     requestBodiesPath,   // optional: keep every generation request's body (request-bodies.ts; off by default)
 *   });
 *   service.socketPath (where it listens: hand THIS to sandboxes, never recompute it), service.port (null without `port`), service.journalPath, service.script
 *   service.stats()       // slots, uptimeMs, requests, generations, byStatus, busySlotMs, queueWaitMsTotal, maxQueued, active, queued
 *   await service.close() // stops both listeners, ends open streams, fsyncs and closes the journal, removes the socket
 *
 * Same config and interface in a child process: startModelServiceProcess (process.ts), for kinds
 * whose event loop is busy — co-located work delays the service's timers. Bench (n=180 replies
 * each, 2 shared cores): median service-time overshoot in-process 7.6 ms vs own process 1.2 ms
 * at load ~35; 10.3 vs 7.8 ms (priority −10: 10.3) at load ~75, where the run queue dominates.
 * Its stats() come from the journal (active/queued null); it exits if its parent dies.
 *
 * Reaching it: a client's base URL is http://127.0.0.1:PORT (host, or the in-sandbox forwarder
 * services/model/forwarder.py from 127.0.0.1:PORT to the bind-mounted socket). A task other than
 * the script's default is named by a path prefix, and so is the attempt (trial/rollout) that sends
 * the traffic: base URL http://127.0.0.1:PORT/t/<task-id>/a/<attempt-id> (either part optional;
 * /v1/responses, /v1/chat/completions, /v1/messages follow as each CLI appends them). The journal
 * records task_id and attempt, so one run-wide service's traffic splits per attempt:
 * summarizeAttempts(entries) (journal-summary.ts) gives first request, turns, model wait per attempt.
 *
 * Reading it back: readModelJournal(path) → { entries, tornTail } (every line validated);
 * statsFromJournal(entries, slots, uptimeMs) → the same stats after the fact; per attempt,
 * scriptedTurnsProblem(traffic, task) → null when it saw exactly the scripted turns, else why.
 * Scripts: parseModelScript(value, name) / loadModelScript(path); turns {shell}, {text}, {fail: 503}.
 *
 * Replies are chosen statelessly from each request (see decide.ts); identical requests get
 * byte-identical replies (ids derive from the request digest, no wall time in bodies).
 * A request the script cannot answer (no task, no shell tool in the request's tools, more tool
 * results than turns) gets a 400 in the protocol's error shape, `x-sandbench-error: <category>`,
 * and a journal entry with that status. Journal entries: journal.ts (ModelJournalEntry).
 */
import { existsSync, chmodSync, mkdirSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { placeSocket, SOCKET_PATH_MAX_BYTES, type PlacedSocket } from '../../harness/run/socket-path.ts';
import { SlotQueue } from './capacity.ts';
import { ModelJournal } from './journal.ts';
import { RequestBodies } from './request-bodies.ts';
import { loadModelScript, type ModelScript } from './script.ts';
import { createHandler, type ServiceStats } from './server.ts';

export { loadModelScript, parseModelScript, ModelScriptError, MODEL_SCRIPT_SCHEMA, MINI_SUBMIT_MARKER, type ModelScript, type ModelScriptInput } from './script.ts';
export { MODEL_JOURNAL_SCHEMA, ModelJournalEntrySchema, readModelJournal, TIMING_FIELDS, type ModelJournalEntry, type ModelJournalContents } from './journal.ts';
export type { ServiceStats } from './server.ts';
export { startModelServiceProcess } from './process.ts';
export { readRequestBodies, REQUEST_BODIES_SCHEMA, type RequestBodyEntry } from './request-bodies.ts';
export { scriptedTurnsProblem, statsFromJournal, summarizeAttempts, type AttemptTraffic } from './journal-summary.ts';

export const MODEL_SOCKET_NAME = 'model.sock';
/** The journal's file name in a bundle; the bundle layout lists it too (harness/bundle/layout.ts BUNDLE_FILES.modelJournal; a test checks they agree). */
export const MODEL_JOURNAL_FILE = 'model-journal.jsonl';
/** Where sandboxes see the bind-mounted socket, and the forwarder's default port. */
export const SANDBOX_SOCKET_PATH = '/run/sandbench/model.sock';
export const SANDBOX_MODEL_PORT = 18080;
/** Absolute path of the in-sandbox TCP→Unix forwarder (stdlib python3; prints FORWARDER_READY); from PROJECT_ROOT, so the bundled dist/ CLI finds it too. */
export const FORWARDER_SCRIPT = join(PROJECT_ROOT, 'services', 'model', 'forwarder.py');
/**
 * What every in-sandbox entry script needs to reach the service, by file name in its support mount:
 * the forwarder and `model-endpoint.sh` (sourced: the direct URL or the forwarder, one copy for all).
 */
export const MODEL_ENDPOINT_FILES: Readonly<Record<string, string>> = {
  'forwarder.py': FORWARDER_SCRIPT,
  'model-endpoint.sh': join(PROJECT_ROOT, 'services', 'model', 'model-endpoint.sh'),
};

export interface ModelServiceConfig {
  script: ModelScript | string;
  socketDir?: string;
  socketPath?: string;
  port?: number;
  slots?: number;
  baseMs?: number;
  perTokenMs?: number;
  journalPath?: string;
  /** Keep each generation request's body in this JSONL (request-bodies.ts); off when absent. */
  requestBodiesPath?: string;
  log?: (line: string) => void;
}

export interface ModelService {
  readonly socketPath: string;
  readonly port: number | null;
  readonly journalPath: string;
  readonly script: ModelScript;
  stats(): ServiceStats;
  close(): Promise<void>;
}

/** Bad service configuration (not a script problem): the message names the option. */
export class ModelServiceConfigError extends Error {}

function checkNumber(name: string, value: number, min: number, integer: boolean): number {
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new ModelServiceConfigError(`model service ${name}: expected ${integer ? 'an integer' : 'a number'} ≥ ${min}, got ${value}`);
  }
  return value;
}

/** A socket file that accepts connections is another live service: one server per run, never two on one path. */
function socketIsLive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * Where the service listens and where its journal goes by default. `socketDir`'s socket may be
 * placed in a short directory (a scratch path holding a long run id would not fit sun_path); its
 * journal stays in `socketDir`. An exact `socketPath` is the caller's choice: only checked.
 */
export function placeModelSocket(config: Pick<ModelServiceConfig, 'socketDir' | 'socketPath'>): { socket: PlacedSocket; journalDir: string } {
  if (config.socketPath) {
    // sun_path holds 108 bytes on Linux; a longer path fails with an obscure EINVAL otherwise
    const length = Buffer.byteLength(config.socketPath);
    if (length > SOCKET_PATH_MAX_BYTES) throw new ModelServiceConfigError(`model service socket path is ${length} bytes, over the ${SOCKET_PATH_MAX_BYTES}-byte Unix socket limit: ${config.socketPath} (give a shorter path, or socketDir)`);
    return { socket: { path: config.socketPath, release: () => undefined }, journalDir: dirname(config.socketPath) };
  }
  if (!config.socketDir) throw new ModelServiceConfigError('model service: give socketDir (the run directory) or socketPath');
  return { socket: placeSocket(join(config.socketDir, MODEL_SOCKET_NAME)), journalDir: config.socketDir };
}

function listen(server: Server, target: string | { port: number; host: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      resolve();
    };
    if (typeof target === 'string') server.listen(target, done);
    else server.listen(target.port, target.host, done);
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export async function startModelService(config: ModelServiceConfig): Promise<ModelService> {
  const script = typeof config.script === 'string' ? loadModelScript(config.script) : config.script;
  const slots = checkNumber('slots', config.slots ?? 4, 1, true);
  const baseMs = checkNumber('baseMs', config.baseMs ?? 0, 0, false);
  const perTokenMs = checkNumber('perTokenMs', config.perTokenMs ?? 0, 0, false);
  if (config.port !== undefined) checkNumber('port', config.port, 0, true);
  const { socket, journalDir } = placeModelSocket(config);
  const socketPath = socket.path;
  mkdirSync(dirname(socketPath), { recursive: true });
  if (existsSync(socketPath)) {
    if (await socketIsLive(socketPath)) {
      // not ours to remove: the directory belongs to the live service
      throw new ModelServiceConfigError(`model service: ${socketPath} already has a live server (one model service per run)`);
    }
    unlinkSync(socketPath); // stale socket of a crashed run
  }
  const journalPath = config.journalPath ?? join(journalDir, MODEL_JOURNAL_FILE);
  mkdirSync(dirname(journalPath), { recursive: true });
  const journal = new ModelJournal(journalPath);
  const closing = new AbortController();
  const queue = new SlotQueue(slots);
  const bodies = config.requestBodiesPath ? new RequestBodies(config.requestBodiesPath) : null;
  const handler = createHandler({ script, timing: { baseMs, perTokenMs }, queue, journal, bodies, log: config.log ?? (() => undefined), closing: closing.signal });
  const servers: Server[] = [];
  const inFlight = new Set<Promise<void>>();
  const track = (server: Server) => {
    server.on('request', (req, res) => {
      const done = handler.handle(req, res);
      inFlight.add(done);
      void done.then(() => inFlight.delete(done));
    });
    // agent CLIs keep connections alive across turns; a short idle timeout would race their next request
    server.keepAliveTimeout = 60_000;
    servers.push(server);
    return server;
  };
  let port: number | null = null;
  try {
    await listen(track(createServer()), socketPath);
    chmodSync(socketPath, 0o777); // sandboxes connect as other uids (rootless containers, bwrap)
    if (config.port !== undefined) {
      const tcp = track(createServer());
      await listen(tcp, { port: config.port, host: '127.0.0.1' });
      port = (tcp.address() as AddressInfo).port;
    }
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    journal.close();
    bodies?.close();
    if (existsSync(socketPath)) unlinkSync(socketPath);
    socket.release();
    const code = (error as NodeJS.ErrnoException).code;
    throw new ModelServiceConfigError(`model service: cannot listen (${code ?? String(error)})${code === 'EADDRINUSE' && config.port ? ` on 127.0.0.1:${config.port}: the port is taken` : ''}`);
  }
  let closed: Promise<void> | null = null;
  return {
    socketPath,
    port,
    journalPath,
    script,
    stats: handler.stats,
    close: () => {
      closed ??= (async () => {
        closing.abort();
        queue.drain();
        await Promise.all(servers.map(closeServer));
        await Promise.all(inFlight);
        journal.close();
        bodies?.close();
        if (existsSync(socketPath)) unlinkSync(socketPath);
        socket.release();
      })();
      return closed;
    },
  };
}
