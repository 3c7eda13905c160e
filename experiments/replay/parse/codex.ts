/**
 * Codex rollout JSONL → canonical history. The model-visible conversation is the `response_item`
 * lines; `event_msg` and `turn_context` are UI/config records and are skipped. `session_meta` must
 * come first and carries the CLI version. Consecutive assistant items (message, then function calls)
 * form one assistant turn, as they are one Responses API output.
 */
import { z } from 'zod';
import { AGENT_FORMATS } from '../agents.ts';
import type { CanonicalHistory, ToolCall } from '../canonical-history.ts';
import { ReplayError } from '../replay-error.ts';
import { expectShape, parseJsonLines, requireSameMajor } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';

const Line = z.object({ type: z.string(), payload: z.record(z.string(), z.unknown()) });
const SessionMeta = z.object({ id: z.string().min(1), cli_version: z.string() });
const ContentItem = z.object({ type: z.string(), text: z.string().optional() });
const Message = z.object({ type: z.literal('message'), role: z.string(), content: z.array(ContentItem) });
const FunctionCall = z.object({ type: z.literal('function_call'), name: z.string().min(1), arguments: z.string(), call_id: z.string().min(1) });
const FunctionCallOutput = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.object({ content: z.string() })]),
});

function callFromFunction(fc: z.infer<typeof FunctionCall>, ref: string): ToolCall {
  let args: unknown;
  try {
    args = JSON.parse(fc.arguments);
  } catch {
    throw new ReplayError('malformed_json', `codex ${ref}: function_call arguments are not valid JSON`);
  }
  const record = typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {};
  if (fc.name === 'exec_command' && typeof record.cmd === 'string') return shellCall(fc.call_id, fc.name, record.cmd);
  // Older rollouts: `shell` with an argv; `bash -lc <script>` is the form the CLI emits.
  if (fc.name === 'shell' && Array.isArray(record.command)) {
    const argv = record.command.map(String);
    const script = argv.length === 3 && argv[1] === '-lc' ? argv[2]! : argv.join(' ');
    return shellCall(fc.call_id, fc.name, script);
  }
  return { id: fc.call_id, kind: 'other', native_name: fc.name, arguments: args };
}

export function parseCodex(text: string): CanonicalHistory {
  const lines = parseJsonLines(text, 'codex rollout');
  const first = expectShape(Line, lines[0]!.value, 'codex line 1');
  if (first.type !== 'session_meta') throw new ReplayError('schema_mismatch', `codex line 1: expected "session_meta", found "${first.type}"`);
  const meta = expectShape(SessionMeta, first.payload, 'codex line 1 payload');
  requireSameMajor('codex', meta.cli_version, AGENT_FORMATS.codex.version, 'cli_version');
  const builder = new HistoryBuilder('codex', meta.cli_version, meta.id);
  let assistantOpen = false;
  for (const { line, value } of lines.slice(1)) {
    const ref = `line ${line}`;
    const entry = expectShape(Line, value, `codex ${ref}`);
    if (entry.type !== 'response_item') continue;
    const kind = entry.payload.type;
    if (kind === 'message') {
      const message = expectShape(Message, entry.payload, `codex ${ref} payload`);
      const textOf = message.content.map((c) => c.text ?? '').join('');
      if (message.role === 'assistant') {
        if (assistantOpen) builder.extendAssistant(textOf, [], ref);
        else builder.assistant(textOf, [], ref);
        assistantOpen = true;
      } else {
        assistantOpen = false;
        if (message.role === 'user') builder.user(textOf, ref);
        else builder.system(textOf, ref);
      }
    } else if (kind === 'function_call') {
      const call = callFromFunction(expectShape(FunctionCall, entry.payload, `codex ${ref} payload`), ref);
      if (assistantOpen) builder.extendAssistant(null, [call], ref);
      else builder.assistant(null, [call], ref);
      assistantOpen = true;
    } else if (kind === 'function_call_output') {
      const out = expectShape(FunctionCallOutput, entry.payload, `codex ${ref} payload`);
      assistantOpen = false;
      builder.tool(out.call_id, typeof out.output === 'string' ? out.output : out.output.content, null, null, ref);
    }
    // reasoning and other item types carry no conversation text we keep in version 1
  }
  return builder.build();
}
