/**
 * Bad input: script files name the file and field; requests the script cannot answer get a
 * categorized 400 in their protocol's error shape and a journal entry; bad service options are refused.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModelScript, parseModelScript, readModelJournal, startModelService, type ModelJournalEntry, type ModelService } from '../../../services/model/index.ts';
import { buildShellCall } from '../../../services/model/shell-tool.ts';
import { claudeRequest, codexRequest, piRequest } from './cli-requests.ts';
import { send } from './client.ts';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-bad-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scriptFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('script files', () => {
  it('names the file and the field of a wrong turn', () => {
    const path = scriptFile('wrong-turn.yaml', 'schema: sandbench-model-script/1\nid: s\ntasks:\n  - id: a\n    turns:\n      - shel: ls\n      - text: done\n');
    expect(() => loadModelScript(path)).toThrow(new RegExp(`${path}: field tasks\\[0\\]\\.turns\\[0\\]`));
  });

  it('refuses a task whose last turn is not final text, duplicate task ids, a wrong schema tag, bad YAML and a missing file', () => {
    expect(() => parseModelScript({ schema: 'sandbench-model-script/1', id: 's', tasks: [{ id: 'a', turns: [{ shell: 'ls' }] }] }, 'inline')).toThrow(/inline: field tasks\[0\]\.turns\[0\]: the last turn must be a final `text` turn/);
    expect(() => parseModelScript({ schema: 'sandbench-model-script/1', id: 's', tasks: [{ id: 'a', turns: [{ text: 'x' }] }, { id: 'a', turns: [{ text: 'y' }] }] }, 'inline')).toThrow(/field tasks\[1\]\.id: duplicate task id "a"/);
    expect(() => parseModelScript({ schema: 'v0', id: 's', tasks: [] }, 'inline')).toThrow(/field schema/);
    expect(() => loadModelScript(scriptFile('broken.yaml', 'tasks: [\n'))).toThrow(/broken\.yaml: not valid YAML/);
    expect(() => loadModelScript(scriptFile('broken.json', '{'))).toThrow(/broken\.json: not valid JSON/);
    expect(() => loadModelScript(join(dir, 'absent.yaml'))).toThrow(/absent\.yaml: cannot read the model script \(ENOENT\)/);
  });

  it('loads every shipped script', () => {
    const shipped = join(import.meta.dirname, '../../../data/model-scripts');
    const names = readdirSync(shipped).filter((name) => /\.(ya?ml|json)$/.test(name));
    expect(names).toEqual(expect.arrayContaining(['marker.yaml', 'three-turns.yaml', 'upstream-fail.yaml']));
    for (const name of names) expect(loadModelScript(join(shipped, name)).id).toBe(name.replace(/\.(ya?ml|json)$/, ''));
    expect(loadModelScript(join(shipped, 'marker.yaml')).tasks[0].turns).toEqual([{ shell: 'printf fixture > marker.txt' }, { text: 'done' }]);
  });
});

describe('shell tool arguments from the tool schema', () => {
  it('uses argv form when the command property is an array and fills required properties from defaults', () => {
    const tools = [{ name: 'shell', schema: { type: 'object', properties: { command: { type: 'array', items: { type: 'string' } }, timeout_ms: { type: 'integer', default: 1000 }, mode: { enum: ['fast', 'slow'] } }, required: ['command', 'timeout_ms', 'mode'] } }];
    expect(JSON.parse(buildShellCall(tools, ['shell'], 'ls').arguments)).toEqual({ command: ['bash', '-lc', 'ls'], timeout_ms: 1000, mode: 'fast' });
  });

  it('prefers the first shell name the request offers and refuses a tool without a command property', () => {
    const tools = [{ name: 'bash', schema: { properties: { command: { type: 'string' } } } }, { name: 'Bash', schema: { properties: { command: { type: 'string' } } } }];
    expect(buildShellCall(tools, ['Bash', 'bash'], 'ls').toolName).toBe('Bash');
    expect(() => buildShellCall([{ name: 'bash', schema: { properties: { code: { type: 'string' } } } }], ['bash'], 'ls')).toThrow(/tool "bash" has no command property .* \(properties: code\)/);
  });
});

describe('requests the script cannot answer', () => {
  let service: ModelService;
  const journal = (): ModelJournalEntry[] => readModelJournal(service.journalPath).entries;
  beforeAll(async () => {
    const script = parseModelScript(
      { schema: 'sandbench-model-script/1', id: 'two', tasks: [{ id: 'fix-a', prompt_contains: 'TASK-A', turns: [{ shell: 'echo a' }, { text: 'a done' }] }, { id: 'fix-b', prompt_contains: 'TASK-B', turns: [{ text: 'b done' }] }] },
      'inline',
    );
    service = await startModelService({ script, socketDir: join(dir, 'svc') });
  });
  afterAll(() => service.close());

  it('tool_mismatch: no shell tool in the request → 400 naming the tools it offered', async () => {
    const body = { ...codexRequest(1), input: [{ type: 'message', role: 'user', content: 'TASK-A' }], tools: [{ type: 'function', name: 'view_image', parameters: {} }] };
    const reply = await send(service.socketPath, 'POST', '/v1/responses', body);
    expect(reply.status).toBe(400);
    expect(reply.headers['x-sandbench-error']).toBe('tool_mismatch');
    expect(JSON.parse(reply.body).error).toMatchObject({ code: 'tool_mismatch', message: expect.stringMatching(/script "two" task "fix-a" turn 0: .*its tools: view_image/) });
    expect(journal().at(-1)).toMatchObject({ status: 'tool_mismatch', http_status: 400, task_id: 'fix-a', turn: 0, service_ms: expect.any(Number) });
  });

  it('no_task_matched: neither a URL task nor a prompt match; an unknown /t/<id>/ names the known tasks', async () => {
    const none = await send(service.socketPath, 'POST', '/v1/chat/completions', piRequest(1));
    expect(JSON.parse(none.body).error.code).toBe('no_task_matched');
    const unknown = await send(service.socketPath, 'POST', '/t/fix-z/v1/messages', claudeRequest(1));
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body)).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', sandbench_category: 'no_task_matched', message: expect.stringMatching(/no task "fix-z".*its tasks: fix-a, fix-b/) } });
  });

  it('a URL task prefix chooses the task; more tool results than turns is script_exhausted', async () => {
    const chosen = await send(service.socketPath, 'POST', '/t/fix-b/v1/messages', claudeRequest(1));
    expect(chosen.status).toBe(200);
    expect(journal().at(-1)).toMatchObject({ task_id: 'fix-b', turn: 0, reply: 'text', path: '/t/fix-b/v1/messages' });
    const exhausted = await send(service.socketPath, 'POST', '/t/fix-b/v1/messages', claudeRequest(2));
    expect(JSON.parse(exhausted.body).error.sandbench_category).toBe('script_exhausted');
    expect(journal().at(-1)).toMatchObject({ status: 'script_exhausted', task_id: 'fix-b', turn: 1 });
  });

  it('bad_request: a body that is not JSON', async () => {
    const reply = await send(service.socketPath, 'POST', '/v1/chat/completions', '{not json');
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body).error.code).toBe('bad_request');
    expect(journal().at(-1)).toMatchObject({ status: 'bad_request', endpoint: 'chat' });
  });
});

describe('service options', () => {
  it('refuses a second live server on the same socket, bad slots and over-long socket paths', async () => {
    const script = join(import.meta.dirname, '../../../data/model-scripts/marker.yaml');
    const first = await startModelService({ script, socketDir: join(dir, 'one') });
    try {
      await expect(startModelService({ script, socketDir: join(dir, 'one') })).rejects.toThrow(/already has a live server/);
    } finally {
      await first.close();
    }
    await expect(startModelService({ script, socketDir: join(dir, 'two'), slots: 0 })).rejects.toThrow(/slots: expected an integer ≥ 1, got 0/);
    await expect(startModelService({ script, socketPath: `/tmp/${'x'.repeat(120)}.sock` })).rejects.toThrow(/over the 107-byte Unix socket limit/);
  });
});
