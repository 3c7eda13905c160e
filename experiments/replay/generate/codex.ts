/**
 * Codex CLI 0.149.0 rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl): every line is
 * `{timestamp, type, payload}`; `session_meta` first, then `turn_context`, `event_msg` (UI events,
 * replayed to the TUI but not sent to the model) and `response_item` (the Responses API items the
 * model saw: `message`, `function_call` with `arguments` as a JSON string, `function_call_output`).
 * The shell tool is `exec_command` with `{"cmd": ...}`; its output is plain text.
 */
import { AGENT_FORMATS } from '../agents.ts';
import { hexId, isoAt, uuidId, type FixtureTask } from '../fixture-task.ts';
import { jsonl } from './jsonl.ts';

export function generateCodex(task: FixtureTask): string {
  const { seed, index } = task;
  const sessionId = uuidId(seed, index, 'session');
  const lines: Record<string, unknown>[] = [];
  let step = 0;
  const line = (type: string, payload: Record<string, unknown>) => lines.push({ timestamp: isoAt(task, step++), type, payload });
  line('session_meta', {
    id: sessionId,
    timestamp: isoAt(task, 0),
    cwd: '/workspace',
    originator: 'codex_exec',
    cli_version: AGENT_FORMATS.codex.version,
    instructions: null,
    source: 'exec',
    model_provider: 'openai',
  });
  line('turn_context', { cwd: '/workspace', approval_policy: 'never', sandbox_policy: { mode: 'danger-full-access' }, model: 'gpt-5-codex', effort: 'medium', summary: 'auto' });
  line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: task.userText }] });
  line('event_msg', { type: 'user_message', message: task.userText, images: [] });
  task.turns.forEach((turn, k) => {
    const callId = `call_${hexId(seed, index, `call-${k}`, 24)}`;
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: turn.text }] });
    line('event_msg', { type: 'agent_message', message: turn.text });
    line('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: turn.command }), call_id: callId });
    line('response_item', { type: 'function_call_output', call_id: callId, output: turn.observation });
  });
  return jsonl(lines);
}
