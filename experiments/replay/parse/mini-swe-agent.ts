/**
 * mini-swe-agent trajectory JSON → canonical history. `trajectory_format` is the schema version and
 * must be the one modelled ("mini-swe-agent-1.1"); the calls are `extra.actions` (the parsed actions
 * the agent executed), results are `tool` messages with `extra.returncode`.
 */
import { z } from 'zod';
import { AGENT_FORMATS } from '../agents.ts';
import type { CanonicalHistory } from '../canonical-history.ts';
import { ReplayError } from '../replay-error.ts';
import { expectShape, parseJsonDocument, requireSameMajor } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';

export const MINI_TRAJECTORY_FORMAT = 'mini-swe-agent-1.1';

const Content = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]);
const Document = z.object({
  trajectory_format: z.string(),
  info: z.object({ mini_version: z.string() }),
  messages: z.array(z.object({ role: z.string(), content: Content.nullable().optional() })),
});
const AssistantMessage = z.object({
  extra: z.object({ actions: z.array(z.object({ command: z.string(), tool_call_id: z.string().min(1) })) }),
});
const ToolMessage = z.object({ tool_call_id: z.string().min(1), extra: z.object({ returncode: z.number().int().nullable().optional() }).optional() });

function textOf(content: z.infer<typeof Content> | null | undefined): string {
  if (content === null || content === undefined) return '';
  return typeof content === 'string' ? content : content.map((c) => c.text ?? '').join('');
}

export function parseMiniSweAgent(text: string): CanonicalHistory {
  const value = parseJsonDocument(text, 'mini-swe-agent trajectory');
  const doc = expectShape(Document, value, 'mini-swe-agent trajectory');
  // zod strips unknown keys; role-specific fields are validated on the raw message below
  const rawMessages = (value as { messages: unknown[] }).messages;
  if (doc.trajectory_format !== MINI_TRAJECTORY_FORMAT) {
    throw new ReplayError('unsupported_version', `mini-swe-agent trajectory_format "${doc.trajectory_format}" is not supported (expected "${MINI_TRAJECTORY_FORMAT}")`);
  }
  requireSameMajor('mini-swe-agent', doc.info.mini_version, AGENT_FORMATS['mini-swe-agent'].version, 'info.mini_version');
  const builder = new HistoryBuilder('mini-swe-agent', doc.info.mini_version, null);
  doc.messages.forEach((message, i) => {
    const ref = `messages[${i}]`;
    const raw = rawMessages[i];
    const content = textOf(message.content);
    if (message.role === 'system') builder.system(content, ref);
    else if (message.role === 'user') builder.user(content, ref);
    else if (message.role === 'assistant') {
      const actions = expectShape(AssistantMessage, raw, `mini-swe-agent ${ref}`).extra.actions;
      builder.assistant(content === '' ? null : content, actions.map((a) => shellCall(a.tool_call_id, 'bash', a.command)), ref);
    } else if (message.role === 'tool') {
      const tool = expectShape(ToolMessage, raw, `mini-swe-agent ${ref}`);
      const exit = tool.extra?.returncode ?? null;
      builder.tool(tool.tool_call_id, content, exit, exit === null ? null : exit !== 0, ref);
    }
    // "exit" and future roles record the end of the run, not conversation
  });
  return builder.build();
}
