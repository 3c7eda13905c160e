/**
 * Claude Code session JSONL → canonical history. Only `user`/`assistant` events on the main chain
 * (isSidechain false) carry the conversation; summaries, snapshots and system events are skipped.
 * Consecutive assistant events with the same `message.id` are one API message split per block.
 */
import { z } from 'zod';
import { AGENT_FORMATS } from '../agents.ts';
import type { CanonicalHistory, ToolCall } from '../canonical-history.ts';
import { expectShape, parseJsonLines, requireSameMajor } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';
import { ReplayError } from '../replay-error.ts';

const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.object({ type: z.literal('tool_use'), id: z.string().min(1), name: z.string().min(1), input: z.record(z.string(), z.unknown()) });
const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]).optional(),
  is_error: z.boolean().optional(),
});
const OtherBlock = z.object({ type: z.string() });

const Event = z.object({
  type: z.string(),
  isSidechain: z.boolean().optional(),
  sessionId: z.string().optional(),
  version: z.string().optional(),
});
const UserEvent = z.object({
  uuid: z.string().min(1),
  message: z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(z.union([TextBlock, ToolResultBlock, OtherBlock]))]) }),
});
const AssistantEvent = z.object({
  uuid: z.string().min(1),
  message: z.object({ id: z.string().min(1), role: z.literal('assistant'), content: z.array(z.union([TextBlock, ToolUseBlock, OtherBlock])) }),
});

function resultText(content: z.infer<typeof ToolResultBlock>['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((block) => block.text ?? '').join('');
}

function toCall(block: z.infer<typeof ToolUseBlock>): ToolCall {
  if (block.name === 'Bash' && typeof block.input.command === 'string') return shellCall(block.id, block.name, block.input.command);
  return { id: block.id, kind: 'other', native_name: block.name, arguments: block.input };
}

export function parseClaudeCode(text: string): CanonicalHistory {
  const lines = parseJsonLines(text, 'claude-code session');
  const modelled = AGENT_FORMATS['claude-code'].version;
  let builder: HistoryBuilder | null = null;
  let lastMessageId: string | null = null;
  for (const { line, value } of lines) {
    const ref = `line ${line}`;
    const event = expectShape(Event, value, `claude-code ${ref}`);
    if ((event.type !== 'user' && event.type !== 'assistant') || event.isSidechain) continue;
    if (!builder) {
      if (event.version === undefined) throw new ReplayError('unsupported_version', `claude-code ${ref}: event has no "version" field (sessions before 1.0 are not modelled)`);
      requireSameMajor('claude-code', event.version, modelled, 'version');
      builder = new HistoryBuilder('claude-code', event.version, event.sessionId ?? null);
    }
    if (event.type === 'user') {
      lastMessageId = null;
      const user = expectShape(UserEvent, value, `claude-code ${ref}`);
      const content = user.message.content;
      if (typeof content === 'string') {
        builder.user(content, ref);
        continue;
      }
      const texts: string[] = [];
      for (const block of content) {
        const result = ToolResultBlock.safeParse(block);
        if (result.success) builder.tool(result.data.tool_use_id, resultText(result.data.content), null, result.data.is_error ?? null, ref);
        else if (block.type === 'text' && 'text' in block) texts.push(String(block.text));
      }
      if (texts.length > 0) builder.user(texts.join('\n'), ref);
      continue;
    }
    const assistant = expectShape(AssistantEvent, value, `claude-code ${ref}`);
    const texts: string[] = [];
    const calls: ToolCall[] = [];
    for (const block of assistant.message.content) {
      const toolUse = ToolUseBlock.safeParse(block);
      if (toolUse.success) calls.push(toCall(toolUse.data));
      else if (block.type === 'text' && 'text' in block) texts.push(String(block.text));
    }
    const joined = texts.length > 0 ? texts.join('\n') : null;
    if (assistant.message.id === lastMessageId) builder.extendAssistant(joined, calls, ref);
    else builder.assistant(joined, calls, ref);
    lastMessageId = assistant.message.id;
  }
  if (!builder) throw new ReplayError('schema_mismatch', 'claude-code session has no user or assistant events');
  return builder.build();
}
