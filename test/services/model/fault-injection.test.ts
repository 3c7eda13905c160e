/**
 * Scripted upstream failures (the rollout kind's "model service returns errors" fault) and the
 * journal reader kinds use: every line validated, a torn last line dropped with a warning.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUNDLE_FILES } from '../../../harness/bundle/layout.ts';
import { MODEL_JOURNAL_FILE, parseModelScript, readModelJournal, scriptedTurnsProblem, startModelService, summarizeAttempts } from '../../../services/model/index.ts';
import { claudeRequest, piRequest } from './cli-requests.ts';
import { send } from './client.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-fault-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a fail turn answers its HTTP status in the protocol error shape after base_ms, journaled injected_error', async () => {
  const script = parseModelScript({ schema: 'sandbench-model-script/1', id: 'faulty', tasks: [{ id: 'f', turns: [{ shell: 'true' }, { fail: 503, message: 'overloaded (injected)' }] }] }, 'inline');
  const service = await startModelService({ script, socketDir: join(dir, 'svc'), slots: 1, baseMs: 100 });
  try {
    expect((await send(service.socketPath, 'POST', '/v1/chat/completions', piRequest(1))).status).toBe(200);
    const failed = await send(service.socketPath, 'POST', '/v1/messages', claudeRequest(2));
    expect(failed.status).toBe(503);
    expect(failed.headers['x-sandbench-error']).toBe('injected_error');
    expect(failed.headers['x-should-retry']).toBe('false');
    expect(JSON.parse(failed.body)).toMatchObject({ type: 'error', error: { message: 'sandbench model service: overloaded (injected)', sandbench_category: 'injected_error' } });
    const { entries } = readModelJournal(service.journalPath);
    expect(entries[1]).toMatchObject({ status: 'injected_error', http_status: 503, reply: 'fail', turn: 1, tokens: 0, error: 'overloaded (injected)' });
    expect(Number(BigInt(entries[1].t_service_end_ns!) - BigInt(entries[1].t_scheduled_start_ns!)) / 1e6).toBeGreaterThanOrEqual(100);
    expect(service.stats().byStatus).toEqual({ ok: 1, injected_error: 1 });
  } finally {
    await service.close();
  }
});

it('readModelJournal drops a torn last line with a warning and names a corrupt line', async () => {
  const service = await startModelService({ script: join(import.meta.dirname, '../../../data/model-scripts/marker.yaml'), socketDir: join(dir, 'read') });
  await send(service.socketPath, 'HEAD', '/');
  await send(service.socketPath, 'GET', '/v1/models');
  await service.close();
  appendFileSync(service.journalPath, '{"schema":"sandbench-model-journal/1","seq":3,"t_arr');
  const torn = readModelJournal(service.journalPath);
  expect(torn.entries.map((entry) => entry.endpoint)).toEqual(['head', 'models']);
  expect(torn.tornTail).toMatch(/dropped a torn last line/);
  const corrupt = join(dir, 'corrupt.jsonl');
  writeFileSync(corrupt, '{"schema":"sandbench-model-journal/1"}\n{}\n');
  expect(() => readModelJournal(corrupt)).toThrow(/corrupt\.jsonl: line 1 is not a model journal entry/);
});

it('splits run-wide traffic per attempt (/a/<id>/) and checks each saw exactly its scripted turns', async () => {
  const script = parseModelScript({ schema: 'sandbench-model-script/1', id: 'split', tasks: [{ id: 'marker', turns: [{ shell: 'true' }, { text: 'done' }] }] }, 'inline');
  const service = await startModelService({ script, socketDir: join(dir, 'split') });
  try {
    await send(service.socketPath, 'HEAD', '/a/trial-1/api/hello');
    await send(service.socketPath, 'POST', '/a/trial-1/v1/messages', claudeRequest(1));
    await send(service.socketPath, 'POST', '/t/marker/a/trial-1/v1/messages', claudeRequest(2));
    await send(service.socketPath, 'POST', '/a/trial-2/v1/chat/completions', piRequest(1));
    await send(service.socketPath, 'POST', '/a/trial-2/v1/chat/completions', { ...piRequest(1), tools: [] }); // a side call
    await send(service.socketPath, 'POST', '/a/trial-2/v1/chat/completions', { ...piRequest(1), tools: [{ type: 'function', function: { name: 'read', parameters: {} } }] });
  } finally {
    await service.close();
  }
  const [one, two] = summarizeAttempts(readModelJournal(service.journalPath).entries);
  expect(one).toMatchObject({ attempt: 'trial-1', taskIds: ['marker'], requests: 3, generations: 2, turnsAnswered: [0, 1], sideReplies: 0, failures: {} });
  expect(one.firstGenerationNs! > one.firstArrivalNs!).toBe(true);
  expect(one.lastServiceEndNs! > one.firstGenerationNs!).toBe(true);
  expect(scriptedTurnsProblem(one, script.tasks[0])).toBeNull();
  expect(two).toMatchObject({ attempt: 'trial-2', requests: 3, generations: 2, turnsAnswered: [0], sideReplies: 1, failures: { tool_mismatch: 1 } });
  expect(scriptedTurnsProblem(two, script.tasks[0])).toBe('model requests failed: 1× tool_mismatch');
  expect(scriptedTurnsProblem({ ...two, failures: {} }, script.tasks[0])).toBe('turns answered [0], scripted [0, 1]');
});

it('the journal file name is the one the bundle layout lists', () => {
  expect(MODEL_JOURNAL_FILE).toBe(BUNDLE_FILES.modelJournal);
});
