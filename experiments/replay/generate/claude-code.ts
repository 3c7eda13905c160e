/**
 * Claude Code 2.1.220 session JSONL (~/.claude/projects/<project>/<sessionId>.jsonl): one event per
 * line chained by uuid/parentUuid; an assistant API message is written as one event per content block
 * sharing `message.id`; tool results come back as a `user` event whose content is `tool_result` blocks,
 * with the Bash tool's structured `toolUseResult` beside it. Claude's Bash result carries no exit code.
 */
import { AGENT_FORMATS } from '../agents.ts';
import { hexId, isoAt, uuidId, type FixtureTask } from '../fixture-task.ts';
import { jsonl } from './jsonl.ts';

const MODEL = 'claude-sonnet-4-5-20250929';

export function generateClaudeCode(task: FixtureTask): string {
  const { seed, index } = task;
  const sessionId = uuidId(seed, index, 'session');
  const common = {
    isSidechain: false,
    userType: 'external',
    cwd: '/workspace',
    sessionId,
    version: AGENT_FORMATS['claude-code'].version,
    gitBranch: '',
  };
  const events: Record<string, unknown>[] = [];
  let parentUuid: string | null = null;
  let toolAssistantUuid = '';
  let step = 0;
  const push = (label: string, body: Record<string, unknown>) => {
    const uuid = uuidId(seed, index, label);
    events.push({ parentUuid, ...common, ...body, uuid, timestamp: isoAt(task, step++) });
    parentUuid = uuid;
  };
  push('user', { type: 'user', message: { role: 'user', content: task.userText } });
  task.turns.forEach((turn, k) => {
    const messageId = `msg_01${hexId(seed, index, `message-${k}`, 22)}`;
    const toolUseId = `toolu_01${hexId(seed, index, `tool-${k}`, 22)}`;
    const requestId = `req_011${hexId(seed, index, `request-${k}`, 21)}`;
    const assistant = (content: unknown[], stopReason: string | null) => ({
      id: messageId,
      type: 'message',
      role: 'assistant',
      model: MODEL,
      content,
      stop_reason: stopReason,
      stop_sequence: null,
      usage: { input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 24, service_tier: 'standard' },
    });
    push(`assistant-text-${k}`, { message: assistant([{ type: 'text', text: turn.text }], null), requestId, type: 'assistant' });
    push(`assistant-tool-${k}`, {
      message: assistant([{ type: 'tool_use', id: toolUseId, name: 'Bash', input: { command: turn.command, description: `Run step ${k}` } }], 'tool_use'),
      requestId,
      type: 'assistant',
    });
    toolAssistantUuid = parentUuid!;
    push(`result-${k}`, {
      type: 'user',
      message: { role: 'user', content: [{ tool_use_id: toolUseId, type: 'tool_result', content: turn.observation, is_error: turn.exitCode !== 0 }] },
      toolUseResult: { stdout: turn.observation, stderr: '', interrupted: false, isImage: false },
      // 2.x links a result to the assistant event that issued the call.
      sourceToolAssistantUUID: toolAssistantUuid,
    });
  });
  return jsonl(events);
}
