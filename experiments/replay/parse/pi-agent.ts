/**
 * pi-agent RPC event JSONL → canonical history. The user prompt is the `message_end` of a user
 * message; each `turn_end` carries the complete assistant message and the tool results of that turn,
 * so streaming events (`message_start/update`, `tool_execution_*`) are not needed. The stream records
 * no version, so the modelled release is assumed.
 */
import { z } from 'zod';
import type { CanonicalHistory, ToolCall } from '../canonical-history.ts';
import { ReplayError } from '../replay-error.ts';
import { expectShape, parseJsonLines } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';

const Event = z.object({ type: z.string() });
const Block = z.object({ type: z.string(), text: z.string().optional() });
const ToolCallBlock = z.object({ type: z.literal('toolCall'), id: z.string().min(1), name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) });
const MessageEnd = z.object({ message: z.object({ role: z.string(), content: z.union([z.string(), z.array(Block)]) }) });
const TurnEnd = z.object({
  message: z.object({ role: z.literal('assistant'), content: z.array(z.unknown()) }),
  toolResults: z.array(
    z.object({ role: z.literal('toolResult'), toolCallId: z.string().min(1), content: z.array(Block), isError: z.boolean().optional() }),
  ),
});

const textOf = (content: string | z.infer<typeof Block>[]) =>
  typeof content === 'string' ? content : content.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');

export function parsePiAgent(text: string): CanonicalHistory {
  const lines = parseJsonLines(text, 'pi-agent events');
  const builder = new HistoryBuilder('pi-agent', null, null);
  let sawAny = false;
  for (const { line, value } of lines) {
    const ref = `line ${line}`;
    const event = expectShape(Event, value, `pi-agent ${ref}`);
    if (event.type === 'message_end') {
      const message = expectShape(MessageEnd, value, `pi-agent ${ref}`).message;
      if (message.role === 'user') {
        builder.user(textOf(message.content), ref);
        sawAny = true;
      }
    } else if (event.type === 'turn_end') {
      const turn = expectShape(TurnEnd, value, `pi-agent ${ref}`);
      const texts: string[] = [];
      const calls: ToolCall[] = [];
      turn.message.content.forEach((raw, j) => {
        const block = expectShape(Block, raw, `pi-agent ${ref} message.content.${j}`);
        if (block.type === 'text') texts.push(block.text ?? '');
        else if (block.type === 'toolCall') {
          const call = expectShape(ToolCallBlock, raw, `pi-agent ${ref} message.content.${j}`);
          calls.push(call.name === 'bash' && typeof call.arguments.command === 'string' ? shellCall(call.id, call.name, call.arguments.command) : { id: call.id, kind: 'other', native_name: call.name, arguments: call.arguments });
        }
      });
      builder.assistant(texts.length > 0 ? texts.join('\n') : null, calls, ref);
      for (const result of turn.toolResults) builder.tool(result.toolCallId, textOf(result.content), null, result.isError ?? null, ref);
      sawAny = true;
    }
  }
  if (!sawAny) throw new ReplayError('schema_mismatch', 'pi-agent events hold no message_end or turn_end');
  return builder.build();
}
