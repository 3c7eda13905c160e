/**
 * OpenCode 1.17.7 event JSONL (`opencode run --format json`): one `{type, timestamp, sessionID, part}`
 * event per line: `step_start`, `text`, `tool_use` (a `tool` part with `callID`, `tool: bash` and a
 * completed `state` holding input, output and `metadata.exit`) and `step_finish` with reason
 * `tool-calls`. `run` does not echo the prompt, so the recorder writes it first as a `user` event
 * carrying the session's user message and its parts (the shape pVisor's fixtures used).
 */
import { hexId, msAt, type FixtureTask } from '../fixture-task.ts';
import { jsonl } from './jsonl.ts';

export function generateOpencode(task: FixtureTask): string {
  const { seed, index } = task;
  const sessionID = `ses_${hexId(seed, index, 'session', 26)}`;
  const events: Record<string, unknown>[] = [];
  let step = 0;
  const id = (prefix: string, label: string) => `${prefix}_${hexId(seed, index, label, 26)}`;
  const event = (type: string, body: Record<string, unknown>) => events.push({ type, timestamp: msAt(task, step++), sessionID, ...body });
  const userMessageID = id('msg', 'user');
  event('user', {
    message: { id: userMessageID, sessionID, role: 'user', time: { created: msAt(task, 0) } },
    parts: [{ id: id('prt', 'user-text'), sessionID, messageID: userMessageID, type: 'text', text: task.userText }],
  });
  task.turns.forEach((turn, k) => {
    const messageID = id('msg', `assistant-${k}`);
    const part = (label: string, body: Record<string, unknown>) => ({ id: id('prt', `${label}-${k}`), sessionID, messageID, ...body });
    const start = msAt(task, step);
    event('step_start', { part: part('step-start', { type: 'step-start', snapshot: hexId(seed, index, `snapshot-${k}`, 40) }) });
    event('text', { part: part('text', { type: 'text', text: turn.text, time: { start, end: start + 1 } }) });
    event('tool_use', {
      part: part('tool', {
        type: 'tool',
        callID: `call_${hexId(seed, index, `call-${k}`, 24)}`,
        tool: 'bash',
        state: {
          status: 'completed',
          input: { command: turn.command, description: `Run step ${k}` },
          output: turn.observation,
          title: turn.command,
          metadata: { output: turn.observation, exit: turn.exitCode, description: `Run step ${k}` },
          time: { start: start + 1, end: start + 2 },
        },
      }),
    });
    event('step_finish', {
      part: part('step-finish', {
        type: 'step-finish',
        reason: 'tool-calls',
        snapshot: hexId(seed, index, `snapshot-end-${k}`, 40),
        cost: 0,
        tokens: { input: 12, output: 24, reasoning: 0, cache: { read: 0, write: 0 } },
      }),
    });
  });
  return jsonl(events);
}
