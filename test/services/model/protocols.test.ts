/**
 * The three wire protocols against each CLI's own request shapes: the replies must be what that
 * CLI parses (event sequences, reassembled tool arguments, finish reasons), turn 1 a shell call
 * of the request's own tool with the scripted command, turn 2 the final text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelJournal, startModelService, type ModelJournalEntry, type ModelService } from '../../../services/model/index.ts';
import { claudeRequest, CLAUDE_HEADERS, codexRequest, miniRequest, opencodeRequest, opencodeTitleRequest, piRequest } from './cli-requests.ts';
import { json, parseSse, send } from './client.ts';

const SCRIPT = join(import.meta.dirname, '../../../data/model-scripts/marker.yaml');
let dir: string;
let service: ModelService;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbench-model-proto-'));
  service = await startModelService({ script: SCRIPT, socketDir: dir, slots: 4 });
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const journal = (): ModelJournalEntry[] => readModelJournal(service.journalPath).entries;

describe('OpenAI Responses (codex)', () => {
  it('turn 1 streams the full function-call event sequence with exec_command {cmd}', async () => {
    const reply = await send(service.socketPath, 'POST', '/v1/responses', codexRequest(1));
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('text/event-stream');
    const events = parseSse(reply.body);
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('response.created');
    expect(names[1]).toBe('response.in_progress');
    expect(names[2]).toBe('response.output_item.added');
    expect(names.slice(-3)).toEqual(['response.function_call_arguments.done', 'response.output_item.done', 'response.completed']);
    expect(new Set(names.slice(3, -3))).toEqual(new Set(['response.function_call_arguments.delta']));
    events.forEach((event, index) => expect(json(event)).toMatchObject({ type: event.event, sequence_number: index }));
    const deltas = events.filter((event) => event.event === 'response.function_call_arguments.delta').map((event) => json(event).delta).join('');
    const done = json(events.at(-1)!).response;
    expect(done.status).toBe('completed');
    const item = done.output[0];
    expect(item).toMatchObject({ type: 'function_call', name: 'exec_command', status: 'completed' });
    expect(item.call_id).toMatch(/^call_/);
    expect(deltas).toBe(item.arguments);
    expect(JSON.parse(item.arguments)).toEqual({ cmd: 'printf fixture > marker.txt' });
    expect(done.usage.output_tokens).toBeGreaterThan(0);
  });

  it('turn 2 (a function_call_output in input) streams the final text "done"', async () => {
    const events = parseSse((await send(service.socketPath, 'POST', '/v1/responses', codexRequest(2))).body);
    expect(events.map((event) => event.event)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    expect(json(events.at(-1)!).response.output[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] });
  });

  it('answers non-streaming requests with one response object', async () => {
    const reply = await send(service.socketPath, 'POST', '/v1/responses', { ...codexRequest(1), stream: false });
    expect(JSON.parse(reply.body)).toMatchObject({ object: 'response', status: 'completed', output: [{ type: 'function_call', name: 'exec_command' }] });
  });
});

describe('Anthropic Messages (claude)', () => {
  it('turn 1 streams named events with a Bash tool_use built from its input_schema', async () => {
    const reply = await send(service.socketPath, 'POST', '/v1/messages?beta=true', claudeRequest(1), CLAUDE_HEADERS);
    expect(reply.status).toBe(200);
    expect(reply.headers['request-id']).toMatch(/^req_/);
    const events = parseSse(reply.body);
    const names = events.map((event) => event.event);
    expect(names[0]).toBe('message_start');
    expect(names[1]).toBe('content_block_start');
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    events.forEach((event) => expect(json(event).type).toBe(event.event));
    expect(json(events[1]).content_block).toMatchObject({ type: 'tool_use', name: 'Bash', input: {} });
    const partial = events.filter((event) => event.event === 'content_block_delta').map((event) => json(event).delta);
    expect(partial.every((delta) => delta.type === 'input_json_delta')).toBe(true);
    expect(JSON.parse(partial.map((delta) => delta.partial_json).join(''))).toEqual({ command: 'printf fixture > marker.txt' });
    expect(json(events.at(-2)!).delta.stop_reason).toBe('tool_use');
  });

  it('turn 2 (a tool_result block) streams text "done" with stop_reason end_turn', async () => {
    const events = parseSse((await send(service.socketPath, 'POST', '/v1/messages?beta=true', claudeRequest(2), CLAUDE_HEADERS)).body);
    expect(json(events[1]).content_block).toEqual({ type: 'text', text: '' });
    const text = events.filter((event) => event.event === 'content_block_delta').map((event) => json(event).delta.text).join('');
    expect(text).toBe('done');
    expect(json(events.at(-2)!).delta.stop_reason).toBe('end_turn');
  });
});

describe('OpenAI Chat Completions (pi, opencode, mini-swe-agent)', () => {
  async function streamedCall(body: unknown) {
    const reply = await send(service.socketPath, 'POST', '/v1/chat/completions', body);
    expect(reply.status).toBe(200);
    const events = parseSse(reply.body);
    expect(events.every((event) => event.event === null)).toBe(true);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map(json);
    chunks.forEach((chunk) => expect(chunk.object).toBe('chat.completion.chunk'));
    return chunks;
  }

  it('pi: turn 1 streams a bash tool call, finish_reason tool_calls, then a usage chunk', async () => {
    const chunks = await streamedCall(piRequest(1));
    const first = chunks[0].choices[0].delta.tool_calls[0];
    expect(first).toMatchObject({ index: 0, type: 'function', function: { name: 'bash', arguments: '' } });
    const args = chunks.flatMap((chunk) => chunk.choices).map((choice) => choice.delta.tool_calls?.[0]?.function?.arguments ?? '').join('');
    expect(JSON.parse(args)).toEqual({ command: 'printf fixture > marker.txt' });
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)!).toMatchObject({ choices: [], usage: { completion_tokens: expect.any(Number) } });
  });

  it('pi: turn 2 streams content "done" with finish_reason stop', async () => {
    const chunks = await streamedCall(piRequest(2));
    expect(chunks.flatMap((chunk) => chunk.choices).map((choice) => choice.delta.content ?? '').join('')).toBe('done');
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe('stop');
  });

  it('opencode: the required description is filled, and the no-tools title call gets the side reply', async () => {
    const chunks = await streamedCall(opencodeRequest(1));
    const args = JSON.parse(chunks.flatMap((chunk) => chunk.choices).map((choice) => choice.delta.tool_calls?.[0]?.function?.arguments ?? '').join(''));
    expect(args).toEqual({ command: 'printf fixture > marker.txt', description: 'sandbench scripted command' });
    const title = await streamedCall(opencodeTitleRequest());
    expect(title.flatMap((chunk) => chunk.choices).map((choice) => choice.delta.content ?? '').join('')).toBe('done');
    expect(journal().at(-1)).toMatchObject({ reply: 'side', turn: null, task_id: 'marker' });
  });

  it('mini-swe-agent: non-streaming JSON; the final text turn becomes its submit call', async () => {
    const first = JSON.parse((await send(service.socketPath, 'POST', '/v1/chat/completions', miniRequest(1))).body);
    expect(first).toMatchObject({ object: 'chat.completion', choices: [{ finish_reason: 'tool_calls', message: { role: 'assistant', content: null } }] });
    expect(JSON.parse(first.choices[0].message.tool_calls[0].function.arguments)).toEqual({ command: 'printf fixture > marker.txt' });
    const second = JSON.parse((await send(service.socketPath, 'POST', '/v1/chat/completions', miniRequest(2))).body);
    expect(JSON.parse(second.choices[0].message.tool_calls[0].function.arguments)).toEqual({ command: 'echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT' });
    expect(journal().at(-1)).toMatchObject({ reply: 'submit', turn: 1, tool_name: 'bash', stream: false });
  });
});

describe('side calls and unknown endpoints', () => {
  it('answers HEAD on any path, GET …/models and count_tokens; rejects the rest with 404 JSON, all journaled', async () => {
    expect((await send(service.socketPath, 'HEAD', '/api/hello')).status).toBe(200);
    const models = JSON.parse((await send(service.socketPath, 'GET', '/v1/models')).body);
    expect(models.data.map((model: { id: string }) => model.id)).toEqual(['fake-model']);
    const count = JSON.parse((await send(service.socketPath, 'POST', '/v1/messages/count_tokens', claudeRequest(1), CLAUDE_HEADERS)).body);
    expect(count.input_tokens).toBeGreaterThan(0);
    const unknown = await send(service.socketPath, 'POST', '/v1/embeddings', { input: 'x' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).error.code).toBe('not_found');
    expect(journal().slice(-4).map((entry) => [entry.endpoint, entry.status, entry.http_status])).toEqual([
      ['head', 'ok', 200], ['models', 'ok', 200], ['count_tokens', 'ok', 200], ['unknown', 'not_found', 404],
    ]);
  });

  it('journals every generation with protocol, turn, digests and monotonic times', async () => {
    const entries = journal().filter((entry) => entry.endpoint === 'responses' || entry.endpoint === 'anthropic' || entry.endpoint === 'chat');
    expect(entries.length).toBeGreaterThanOrEqual(9);
    for (const entry of entries) {
      expect(entry.request_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(entry.response_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(BigInt(entry.t_service_end_ns!)).toBeGreaterThanOrEqual(BigInt(entry.t_service_start_ns!));
      expect(BigInt(entry.t_service_start_ns!)).toBeGreaterThanOrEqual(BigInt(entry.t_enqueued_ns));
      expect(BigInt(entry.t_enqueued_ns)).toBeGreaterThanOrEqual(BigInt(entry.t_arrival_ns));
      expect(entry.script_id).toBe('marker');
    }
    const seqs = journal().map((entry) => entry.seq);
    expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  });
});
