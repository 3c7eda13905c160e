/** Test client for the model service: raw HTTP over its Unix socket (what the forwarder relays), SSE split into events. */
import { request } from 'node:http';

export interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function send(socketPath: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = request({ socketPath, path, method, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export interface SseEvent {
  event: string | null;
  data: string;
}

export function parseSse(body: string): SseEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      let event: string | null = null;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
        else throw new Error(`unexpected SSE line ${JSON.stringify(line)}`);
      }
      return { event, data: data.join('\n') };
    });
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read nested fields of arbitrary protocol JSON
export const json = (event: SseEvent) => JSON.parse(event.data) as Record<string, any>;
