/**
 * SWE-agent .traj → canonical history, read from `history` (what the model saw). Demonstration
 * messages (`is_demo`) are skipped; function-calling turns give `tool_calls` (the `bash` tool's
 * `command` argument), answered by `tool` messages listing `tool_call_ids`. `info.swe_agent_version`
 * must share the modelled major version.
 */
import { z } from 'zod';
import { AGENT_FORMATS } from '../agents.ts';
import type { CanonicalHistory, ToolCall } from '../canonical-history.ts';
import { ReplayError } from '../replay-error.ts';
import { expectShape, parseJsonDocument, requireSameMajor } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';

const Content = z.union([z.string(), z.array(z.object({ type: z.string(), text: z.string().optional() }))]);
const Document = z.object({
  trajectory: z.array(z.unknown()),
  history: z.array(z.unknown()),
  info: z.object({ swe_agent_version: z.string() }),
});
const Message = z.object({ role: z.string(), content: Content, is_demo: z.boolean().optional() });
const AssistantMessage = z.object({
  thought: z.string().optional(),
  action: z.string().optional(),
  tool_calls: z
    .array(z.object({ id: z.string().min(1), function: z.object({ name: z.string().min(1), arguments: z.string() }) }))
    .nullable()
    .optional(),
});
const ToolMessage = z.object({ tool_call_ids: z.array(z.string().min(1)).min(1) });

const textOf = (content: z.infer<typeof Content>) => (typeof content === 'string' ? content : content.map((c) => c.text ?? '').join(''));

function callOf(call: { id: string; function: { name: string; arguments: string } }, ref: string): ToolCall {
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments);
  } catch {
    throw new ReplayError('malformed_json', `swe-agent ${ref}: tool call arguments are not valid JSON`);
  }
  const command = (args as { command?: unknown } | null)?.command;
  if (call.function.name === 'bash' && typeof command === 'string') return shellCall(call.id, call.function.name, command);
  return { id: call.id, kind: 'other', native_name: call.function.name, arguments: args };
}

export function parseSweAgent(text: string): CanonicalHistory {
  const doc = expectShape(Document, parseJsonDocument(text, 'swe-agent trajectory'), 'swe-agent trajectory');
  requireSameMajor('swe-agent', doc.info.swe_agent_version, AGENT_FORMATS['swe-agent'].version, 'info.swe_agent_version');
  const builder = new HistoryBuilder('swe-agent', doc.info.swe_agent_version, null);
  doc.history.forEach((raw, i) => {
    const ref = `history[${i}]`;
    const message = expectShape(Message, raw, `swe-agent ${ref}`);
    if (message.is_demo) return;
    const content = textOf(message.content);
    if (message.role === 'system') builder.system(content, ref);
    else if (message.role === 'user') builder.user(content, ref);
    else if (message.role === 'assistant') {
      const assistant = expectShape(AssistantMessage, raw, `swe-agent ${ref}`);
      const calls = assistant.tool_calls?.map((call) => callOf(call, ref)) ?? [];
      // Non-function-calling parsers record only `action`; give it a positional id.
      if (calls.length === 0 && assistant.action) calls.push(shellCall(`history-${i}`, 'action', assistant.action));
      builder.assistant(content === '' ? assistant.thought ?? null : content, calls, ref);
    } else if (message.role === 'tool') {
      const ids = expectShape(ToolMessage, raw, `swe-agent ${ref}`).tool_call_ids;
      for (const id of ids) builder.tool(id, content, null, null, ref);
    }
  });
  return builder.build();
}
