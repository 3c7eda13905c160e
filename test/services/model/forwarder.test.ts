/**
 * The in-sandbox forwarder (stdlib python3): TCP 127.0.0.1:PORT → the service's Unix socket, the
 * path sandboxes without a network use. Run here on the host against a real service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FORWARDER_SCRIPT, startModelService, type ModelService } from '../../../services/model/index.ts';
import { codexRequest } from './cli-requests.ts';
import { parseSse } from './client.ts';

let dir: string;
let service: ModelService;
let forwarder: ChildProcess;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-fwd-'));
  service = await startModelService({ script: join(import.meta.dirname, '../../../data/model-scripts/marker.yaml'), socketDir: dir });
  forwarder = spawn('python3', [FORWARDER_SCRIPT, '--listen', '127.0.0.1:0', '--socket', service.socketPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  port = await new Promise<number>((resolve, reject) => {
    let out = '';
    forwarder.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^FORWARDER_READY 127\.0\.0\.1:(\d+) -> /m.exec(out);
      if (match) resolve(Number(match[1]));
    });
    forwarder.once('exit', (code) => reject(new Error(`forwarder exited ${code} before FORWARDER_READY`)));
  });
});
afterAll(async () => {
  forwarder?.kill('SIGTERM');
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

function post(path: string, body: unknown, agent: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', connection: agent ? 'keep-alive' : 'close' } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

it('relays streamed replies and concurrent connections byte for byte', async () => {
  const replies = await Promise.all([post('/v1/responses', codexRequest(1), true), post('/v1/responses', codexRequest(2), false), post('/v1/responses', codexRequest(1), false)]);
  expect(parseSse(replies[0]).at(-1)!.event).toBe('response.completed');
  expect(replies[2]).toBe(replies[0]);
  const journal = readFileSync(service.journalPath, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  expect(journal.map((entry) => entry.turn).sort()).toEqual([0, 0, 1]);
  expect(journal.every((entry) => entry.status === 'ok')).toBe(true);
});
