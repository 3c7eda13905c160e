/**
 * The model service against Harbor terminus-2's protocol, from its real first prompt (captured from
 * the agent's own trajectory.json in a harbor 0.25.0 run: test/fixtures/terminus-2/): no tools, the
 * turn is the assistant messages so far, a shell turn is one JSON command batch, the final text turn
 * `task_complete: true`, answered again for terminus' confirmation question, and nothing after it.
 * Every reply is parsed back as terminus' parser requires (analysis, plan, commands).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decide, ScriptReplyError, type Decision } from '../../../services/model/decide.ts';
import { viewRequest } from '../../../services/model/request-view.ts';
import { parseModelScript } from '../../../services/model/script.ts';

const PROMPT = readFileSync(join(import.meta.dirname, '../../fixtures/terminus-2/first-prompt-harbor-0.25.0.txt'), 'utf8');

/** terminus-2's Chat Completions request after `replies` assistant messages (non-streaming, no tools, as it sends). */
function request(replies: number, prompt = PROMPT) {
  const messages: unknown[] = [{ role: 'user', content: prompt }];
  for (let i = 0; i < replies; i++) {
    messages.push({ role: 'assistant', content: `{"analysis": "a${i}", "plan": "p", "commands": [], "task_complete": false}` });
    messages.push({ role: 'user', content: 'New Terminal Output:\nroot@sandbench-task:/workspace#' });
  }
  return viewRequest('chat', Buffer.from(JSON.stringify({ model: 'x', messages })));
}

const script = parseModelScript(
  {
    schema: 'sandbench-model-script/1',
    id: 'terminus',
    side_reply: 'a title',
    tasks: [{ id: 'c', prompt_contains: 'Adler-32', turns: [{ shell: 'ls' }, { shell: 'gcc -o a a.c', args: { duration: 3 } }, { text: 'fixed' }] }],
  },
  'test script',
);

const content = (decision: Decision) => ('text' in decision.reply ? JSON.parse(decision.reply.text) : null);

function refusal(run: () => unknown): ScriptReplyError {
  try {
    run();
  } catch (error) {
    if (error instanceof ScriptReplyError) return error;
    throw error;
  }
  throw new Error('expected a ScriptReplyError');
}

describe('terminus-2 protocol', () => {
  it('answers each turn with the JSON object terminus parses, and task_complete twice', () => {
    const decisions = [0, 1, 2, 3].map((replies) => decide(script, request(replies), null));
    expect(decisions.map((d) => [d.reply.kind, d.turn, d.taskId])).toEqual([
      ['text', 0, 'c'],
      ['text', 1, 'c'],
      ['text', 2, 'c'],
      ['text', 2, 'c'], // the confirmation question is answered by the same final turn
    ]);
    const [first, second, done, confirmed] = decisions.map(content);
    expect(Object.keys(first)).toEqual(['analysis', 'plan', 'commands', 'task_complete']);
    expect(first.commands).toEqual([{ keystrokes: 'ls\n', duration: 1 }]);
    expect(first.task_complete).toBe(false);
    expect(second.commands).toEqual([{ keystrokes: 'gcc -o a a.c\n', duration: 3 }]);
    expect(done).toEqual({ analysis: 'fixed', plan: 'The task is complete.', commands: [], task_complete: true });
    expect(confirmed).toEqual(done);
  });

  it('refuses a request past the confirmation as script_exhausted', () => {
    const error = refusal(() => decide(script, request(4), null));
    expect(error.category).toBe('script_exhausted');
    expect(error.message).toContain('already holds 4 replies');
  });

  it('keeps the side reply for other no-tools requests, and refuses call turns and the XML format', () => {
    expect(decide(script, request(0, 'Adler-32: write a title for this conversation'), null).reply).toEqual({ kind: 'side', text: 'a title' });
    const calling = parseModelScript({ schema: 'sandbench-model-script/1', id: 'x', tasks: [{ id: 'x', turns: [{ call: 'think' }, { text: 'done' }] }] }, 'x');
    expect(refusal(() => decide(calling, request(0), null))).toMatchObject({ category: 'tool_mismatch', turn: 0 });
    const xml = 'Format your response as XML\n<response><commands><keystrokes duration="0.1">ls\n</keystrokes></commands><task_complete>true</task_complete></response>\nAdler-32';
    const error = refusal(() => decide(script, request(0, xml), null));
    expect(error.category).toBe('tool_mismatch');
    expect(error.message).toContain('parser_name=xml');
  });
});
