/**
 * The model service against OpenHands' own tool list (openhands-sdk/-tools 1.34.0, captured from
 * its first request: test/fixtures/openhands/): a shell turn calls `terminal`, the final text turn
 * becomes `finish {message}`, a `call` turn names `file_editor` or `think` with the script's
 * arguments, and a named tool the request lacks is a tool_mismatch naming what it offered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide, ScriptReplyError } from '../../../services/model/decide.ts';
import { viewRequest } from '../../../services/model/request-view.ts';
import { parseModelScript } from '../../../services/model/script.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/openhands/chat-tools-1.34.0.json');
const tools = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { tools: unknown[] }).tools;

/** An OpenHands Chat Completions request after `results` tool results (non-streaming, as it sends). */
function request(results: number) {
  const messages: unknown[] = [
    { role: 'system', content: 'You are OpenHands agent' },
    { role: 'user', content: [{ type: 'text', text: 'write the marker' }] },
  ];
  for (let i = 0; i < results; i++) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'terminal', arguments: '{}' } }] });
    messages.push({ role: 'tool', tool_call_id: `call_${i}`, content: [{ type: 'text', text: 'ok' }] });
  }
  return viewRequest('chat', Buffer.from(JSON.stringify({ model: 'fake-model', messages, tools })));
}

const script = parseModelScript(
  {
    schema: 'sandbench-model-script/1',
    id: 'openhands-tools',
    tasks: [
      {
        id: 'edit',
        turns: [
          { call: 'think', args: { thought: 'create the file, then check it' } },
          { call: 'file_editor', args: { command: 'create', path: '/workspace/marker.txt', file_text: 'fixture' } },
          { shell: 'cat marker.txt' },
          { text: 'done' },
        ],
      },
    ],
  },
  'test script',
);

describe('OpenHands tools', () => {
  it('drives think, file_editor, terminal and finish from one script', () => {
    const replies = [0, 1, 2, 3].map((turn) => decide(script, request(turn), null).reply);
    expect(replies.map((reply) => [reply.kind, 'toolName' in reply ? reply.toolName : null, 'arguments' in reply ? JSON.parse(reply.arguments) : null])).toEqual([
      ['tool', 'think', { thought: 'create the file, then check it' }],
      ['tool', 'file_editor', { command: 'create', path: '/workspace/marker.txt', file_text: 'fixture' }],
      ['tool', 'terminal', { command: 'cat marker.txt' }],
      ['submit', 'finish', { message: 'done' }],
    ]);
  });

  it('the shipped marker script calls terminal, then finish', () => {
    const marker = parseModelScript({ schema: 'sandbench-model-script/1', id: 'marker', tasks: [{ id: 'marker', turns: [{ shell: 'printf fixture > marker.txt' }, { text: 'done' }] }] }, 'marker');
    expect(decide(marker, request(0), null).reply).toMatchObject({ kind: 'tool', toolName: 'terminal', arguments: '{"command":"printf fixture > marker.txt"}' });
    expect(decide(marker, request(1), null).reply).toMatchObject({ kind: 'submit', toolName: 'finish', arguments: '{"message":"done"}' });
  });

  it('a call of a tool the request lacks is a tool_mismatch naming the tools it had', () => {
    const lacking = parseModelScript({ schema: 'sandbench-model-script/1', id: 'x', tasks: [{ id: 'x', turns: [{ call: 'browser_navigate' }, { text: 'done' }] }] }, 'x');
    const error = (() => {
      try {
        decide(lacking, request(0), null);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ScriptReplyError);
    expect((error as ScriptReplyError).category).toBe('tool_mismatch');
    expect((error as Error).message).toContain('no tool named browser_navigate (its tools: terminal, file_editor, finish, think)');
  });

  it('a script may not end on a call turn', () => {
    expect(() => parseModelScript({ schema: 'sandbench-model-script/1', id: 'x', tasks: [{ id: 'x', turns: [{ call: 'think' }] }] }, 'bad.yaml')).toThrow(/bad.yaml: field tasks\[0\]\.turns\[0\]: the last turn must be a final `text` turn/);
  });
});
