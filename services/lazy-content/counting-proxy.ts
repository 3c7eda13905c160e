/**
 * A byte-counting reverse proxy in front of the local registry: the full-pull baseline's meter.
 * Content = bodies of successful blob GETs (`/v2/<name>/blobs/<digest>`, 200), counted per digest
 * so a cold pull can be checked against the manifest's blob list; everything else (ping, manifests,
 * HEADs, headers) is metadata. Counting at the proxy sees exactly what the client received.
 */
import { request } from 'node:http';
import { startCountingServer, type CountingServer } from './counting-http-server.ts';

const BLOB_PATH = /^\/v2\/.+\/blobs\/(sha256:[0-9a-f]{64})$/;

export interface CountingProxy extends CountingServer {
  /** Body bytes of successful blob GETs since the last reset, by digest (summed over repeats). */
  blobs(): Record<string, number>;
  /** Blob GETs per digest since the last reset (a repeat fetch is visible here). */
  blobFetches(): Record<string, number>;
}

export async function startCountingProxy(upstream: { host: string; port: number }): Promise<CountingProxy> {
  let blobBytes: Record<string, number> = {};
  let blobFetches: Record<string, number> = {};
  const server = await startCountingServer(
    (req, res, tally) =>
      new Promise<void>((resolve, reject) => {
        const path = req.url ?? '/';
        const blob = BLOB_PATH.exec(path.split('?')[0] ?? '')?.[1] ?? null;
        tally.kind = `${req.method} ${blob ? 'blob' : path.includes('/manifests/') ? 'manifest' : 'other'}`;
        const upstreamReq = request(
          { host: upstream.host, port: upstream.port, method: req.method, path, headers: req.headers },
          (upstreamRes) => {
            const status = upstreamRes.statusCode ?? 502;
            const content = blob !== null && req.method === 'GET' && status === 200;
            const bytes = blobBytes;
            const fetches = blobFetches;
            if (content && blob) fetches[blob] = (fetches[blob] ?? 0) + 1;
            res.writeHead(status, upstreamRes.statusMessage, upstreamRes.headers);
            upstreamRes.on('data', (chunk: Buffer) => {
              tally.body(chunk.length, content);
              if (content && blob) bytes[blob] = (bytes[blob] ?? 0) + chunk.length;
            });
            upstreamRes.pipe(res);
            res.on('close', () => resolve());
            upstreamRes.on('error', reject);
          },
        );
        upstreamReq.on('error', reject);
        req.pipe(upstreamReq);
      }),
  );
  return {
    ...server,
    reset() {
      server.reset();
      blobBytes = {};
      blobFetches = {};
    },
    blobs: () => ({ ...blobBytes }),
    blobFetches: () => ({ ...blobFetches }),
  };
}
