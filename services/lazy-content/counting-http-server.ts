/**
 * A loopback HTTP server that counts what it sends, for the lazy-image experiment's byte audit.
 * Two independent counts make the accounting checkable: handlers report the body bytes they send
 * (split into image content and everything else), and every socket's `bytesWritten` gives the
 * bytes actually put on the wire (status lines + headers + bodies). The harness reads and resets
 * the counters once per launch.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface ByteCounters {
  requests: number;
  /** TCP connections accepted (a client that reuses one connection shows 1). */
  connections: number;
  /** Body bytes that are image content (squashfs ranges, OCI blobs). */
  contentBytes: number;
  /** Every HTTP body byte (content + manifests, pings, error bodies). */
  bodyBytes: number;
  /** Every byte written to client sockets: status lines, headers and bodies (excludes TCP/IP framing). */
  wireBytes: number;
  /** Sum over requests of arrival → response finished, ms: with one request in flight at a time this bounds the client's wait. */
  serviceMs: number;
  /** Requests per "METHOD kind" label a handler gives (e.g. "GET blob", "HEAD image"). */
  byKind: Record<string, number>;
}

/** What a handler tells the counter about one response. */
export interface ResponseTally {
  /** Label for byKind. */
  kind: string;
  /** Add body bytes as they are written; `content` marks image content. */
  body(bytes: number, content: boolean): void;
}

export type CountingHandler = (req: IncomingMessage, res: ServerResponse, tally: ResponseTally) => void | Promise<void>;

export interface CountingServer {
  readonly url: string;
  readonly port: number;
  /** Counters since the last reset. Wire bytes of sockets still open are included up to now. */
  read(): ByteCounters;
  reset(): void;
  /** Stop listening and destroy every open connection. Idempotent. */
  close(): Promise<void>;
}

const emptyCounters = (): Omit<ByteCounters, 'wireBytes'> => ({ requests: 0, connections: 0, contentBytes: 0, bodyBytes: 0, serviceMs: 0, byKind: {} });

export interface CountingServerOptions {
  /** How long an idle keep-alive connection stays open, ms (default 30 s). */
  keepAliveMs?: number;
}

export async function startCountingServer(handler: CountingHandler, options: CountingServerOptions = {}): Promise<CountingServer> {
  let counters = emptyCounters();
  // Wire bytes: closed sockets' totals since the last reset, plus open sockets relative to their baseline.
  let closedWire = 0;
  const openSockets = new Map<Socket, number>();

  const server: Server = createServer({ noDelay: true, keepAliveTimeout: options.keepAliveMs ?? 30_000 }, (req, res) => {
    const started = process.hrtime.bigint();
    counters.requests++;
    const tally: ResponseTally = {
      kind: req.method ?? 'UNKNOWN',
      body(bytes, content) {
        counters.bodyBytes += bytes;
        if (content) counters.contentBytes += bytes;
      },
    };
    const current = counters;
    res.on('finish', () => {
      current.serviceMs += Number(process.hrtime.bigint() - started) / 1e6;
      current.byKind[tally.kind] = (current.byKind[tally.kind] ?? 0) + 1;
    });
    Promise.resolve(handler(req, res, tally)).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end();
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  });
  server.on('connection', (socket: Socket) => {
    counters.connections++;
    openSockets.set(socket, 0);
    socket.on('close', () => {
      const baseline = openSockets.get(socket);
      if (baseline !== undefined) closedWire += socket.bytesWritten - baseline;
      openSockets.delete(socket);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    read() {
      let wireBytes = closedWire;
      for (const [socket, baseline] of openSockets) wireBytes += socket.bytesWritten - baseline;
      return { ...counters, byKind: { ...counters.byKind }, wireBytes };
    },
    reset() {
      counters = emptyCounters();
      closedWire = 0;
      for (const socket of openSockets.keys()) openSockets.set(socket, socket.bytesWritten);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
