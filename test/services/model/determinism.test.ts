/**
 * Determinism: the same script and the same requests give byte-identical replies and a journal
 * identical apart from its timing fields, on two independent service instances.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startModelService, TIMING_FIELDS } from '../../../services/model/index.ts';
import { claudeRequest, CLAUDE_HEADERS, codexRequest, miniRequest, opencodeRequest, opencodeTitleRequest, piRequest } from './cli-requests.ts';
import { send } from './client.ts';

const SCRIPT = join(import.meta.dirname, '../../../data/model-scripts/marker.yaml');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-det-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REQUESTS: Array<[string, string, unknown, Record<string, string>?]> = [
  ['HEAD', '/api/hello', undefined],
  ['POST', '/v1/responses', codexRequest(1)],
  ['POST', '/v1/responses', codexRequest(2)],
  ['POST', '/v1/messages?beta=true', claudeRequest(1), CLAUDE_HEADERS],
  ['POST', '/v1/messages?beta=true', claudeRequest(2), CLAUDE_HEADERS],
  ['POST', '/v1/chat/completions', piRequest(1)],
  ['POST', '/v1/chat/completions', opencodeTitleRequest()],
  ['POST', '/v1/chat/completions', opencodeRequest(2)],
  ['POST', '/v1/chat/completions', miniRequest(2)],
  ['POST', '/t/nope/v1/chat/completions', miniRequest(1)],
  ['GET', '/v1/models', undefined],
];

async function session(name: string) {
  const service = await startModelService({ script: SCRIPT, socketDir: join(dir, name), slots: 2, baseMs: 2, perTokenMs: 0.5 });
  const bodies: string[] = [];
  for (const [method, path, body, headers] of REQUESTS) bodies.push((await send(service.socketPath, method, path, body, headers)).body);
  await service.close();
  const journal = readFileSync(service.journalPath, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const entry = JSON.parse(line);
      for (const field of TIMING_FIELDS) delete entry[field];
      return JSON.stringify(entry);
    });
  return { bodies, journal };
}

it('replays byte-identically: replies, and the journal apart from its timing fields', async () => {
  const first = await session('a');
  const second = await session('b');
  expect(second.bodies).toEqual(first.bodies);
  expect(second.journal).toEqual(first.journal);
  expect(first.journal).toHaveLength(REQUESTS.length);
  // different requests get different ids: identity comes from the request, not from a constant
  expect(new Set(first.bodies.slice(1, 9).map((body) => /"id":"([^"]+)"/.exec(body)?.[1])).size).toBe(8);
});
