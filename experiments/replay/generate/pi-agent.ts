/**
 * pi coding agent 0.83.0 RPC event JSONL (`pi --mode rpc`, events as emitted on stdout): `agent_start`,
 * `turn_start`, `message_start`/`message_end` per message (the user prompt's `message_end` carries it),
 * `tool_execution_start`/`_end`, and `turn_end` holding the assistant message (`content` with `text`
 * and `toolCall {id, name, arguments}` blocks, `stopReason: "toolUse"`) and its `toolResults`
 * (`{role: "toolResult", toolCallId, toolName, content, isError}`). Pi's bash result has no exit code
 * field; failures are `isError`.
 */
import { hexId, msAt, type FixtureTask } from '../fixture-task.ts';
import { jsonl } from './jsonl.ts';

export function generatePiAgent(task: FixtureTask): string {
  const { seed, index } = task;
  const events: Record<string, unknown>[] = [];
  let step = 0;
  const userMessage = { role: 'user', content: [{ type: 'text', text: task.userText }], timestamp: msAt(task, step++) };
  events.push({ type: 'agent_start' });
  events.push({ type: 'turn_start' });
  events.push({ type: 'message_start', message: userMessage });
  events.push({ type: 'message_end', message: userMessage });
  task.turns.forEach((turn, k) => {
    if (k > 0) events.push({ type: 'turn_start' });
    const id = `toolu_01${hexId(seed, index, `tool-${k}`, 22)}`;
    const assistant = {
      role: 'assistant',
      content: [
        { type: 'text', text: turn.text },
        { type: 'toolCall', id, name: 'bash', arguments: { command: turn.command } },
      ],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: { input: 12, output: 24, cacheRead: 0, cacheWrite: 0, totalTokens: 36, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: 'toolUse',
      timestamp: msAt(task, step++),
    };
    events.push({ type: 'message_start', message: assistant });
    events.push({ type: 'message_end', message: assistant });
    const args = { command: turn.command };
    events.push({ type: 'tool_execution_start', toolCallId: id, toolName: 'bash', args });
    const result = { content: [{ type: 'text', text: turn.observation }] };
    events.push({ type: 'tool_execution_end', toolCallId: id, toolName: 'bash', result, isError: turn.exitCode !== 0 });
    const toolResult = { role: 'toolResult', toolCallId: id, toolName: 'bash', content: result.content, isError: turn.exitCode !== 0, timestamp: msAt(task, step++) };
    events.push({ type: 'message_start', message: toolResult });
    events.push({ type: 'message_end', message: toolResult });
    events.push({ type: 'turn_end', message: assistant, toolResults: [toolResult] });
  });
  return jsonl(events);
}
