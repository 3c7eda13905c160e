/**
 * The lazy image's content service: serves one file (the task image as squashfs) over loopback
 * HTTP with single-range support (RFC 9110 §14), counting every body byte as image content.
 * HEAD answers carry `Accept-Ranges: bytes` with that exact capitalisation: httpfs2 0.1.4 matches
 * the header name case-sensitively and refuses the server otherwise (observed here).
 */
import { createReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startCountingServer, type CountingServer, type CountingServerOptions, type ResponseTally } from './counting-http-server.ts';

export interface ContentService extends CountingServer {
  /** URL of the served file; httpfs2 names its FUSE file after the last path segment. */
  readonly fileUrl: string;
  readonly fileName: string;
  readonly fileBytes: number;
}

export type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/** Parse one `bytes=` range against a file size; null = no usable Range (serve the whole file). */
export function parseRange(header: string | undefined, size: number): ByteRange {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null; // multi-range or malformed: ignore (allowed by RFC 9110)
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

async function serveFile(path: string, handle: FileHandle, size: number, req: IncomingMessage, res: ServerResponse, tally: ResponseTally): Promise<void> {
  const common = { 'Accept-Ranges': 'bytes', 'Content-Type': 'application/octet-stream' };
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    tally.kind = `${req.method} refused`;
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Length': 0 });
    res.end();
    return;
  }
  const range = parseRange(req.headers.range, size);
  if (req.method === 'HEAD') {
    tally.kind = 'HEAD image';
    res.writeHead(200, { ...common, 'Content-Length': size });
    res.end();
    return;
  }
  if (range === 'unsatisfiable') {
    tally.kind = 'GET unsatisfiable';
    res.writeHead(416, { ...common, 'Content-Range': `bytes */${size}`, 'Content-Length': 0 });
    res.end();
    return;
  }
  if (range === null) {
    tally.kind = 'GET whole';
    res.writeHead(200, { ...common, 'Content-Length': size });
    const stream = createReadStream(path);
    stream.on('data', (chunk) => tally.body(chunk.length, true));
    stream.pipe(res);
    await new Promise<void>((resolve, reject) => {
      res.on('finish', resolve);
      stream.on('error', reject);
    });
    return;
  }
  tally.kind = 'GET range';
  const length = range.end - range.start + 1;
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, range.start);
  if (bytesRead !== length) throw new Error(`short read of ${path}: ${bytesRead}/${length} at ${range.start}`);
  res.writeHead(206, { ...common, 'Content-Length': length, 'Content-Range': `bytes ${range.start}-${range.end}/${size}` });
  tally.body(length, true);
  res.end(buffer);
}

/** Start serving `path` as `/<fileName>` on 127.0.0.1 (ephemeral port); anything else is 404. */
export async function startContentService(path: string, fileName: string, options: CountingServerOptions = {}): Promise<ContentService> {
  // One descriptor for the service's life: a per-request open() would add latency to every range.
  const handle = await open(path, 'r');
  const size = (await handle.stat()).size;
  const server = await startCountingServer(async (req, res, tally) => {
    if (req.url !== `/${fileName}`) {
      tally.kind = `${req.method} not-found`;
      res.writeHead(404, { 'Content-Length': 0 });
      res.end();
      return;
    }
    await serveFile(path, handle, size, req, res, tally);
  }, options);
  const close = async () => {
    await server.close();
    await handle.close().catch(() => undefined);
  };
  return { ...server, close, fileUrl: `${server.url}/${fileName}`, fileName, fileBytes: size };
}
