/**
 * OpenCode event JSONL → canonical history. A `step_start` … `step_finish` span is one assistant
 * turn; its `text` parts are the text and its completed or errored `tool` parts are both the calls
 * and (since OpenCode stores the result in the part's state) the results, emitted after the turn.
 * The file records no version, so the modelled release is assumed.
 */
import { z } from 'zod';
import type { CanonicalHistory, ToolCall } from '../canonical-history.ts';
import { ReplayError } from '../replay-error.ts';
import { expectShape, parseJsonLines } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';

const Event = z.object({ type: z.string(), sessionID: z.string().optional() });
const UserEvent = z.object({ parts: z.array(z.object({ type: z.string(), text: z.string().optional() })) });
const TextEvent = z.object({ part: z.object({ type: z.literal('text'), text: z.string() }) });
const ToolState = z.discriminatedUnion('status', [
  z.object({
    status: z.literal('completed'),
    input: z.record(z.string(), z.unknown()),
    output: z.string(),
    metadata: z.object({ exit: z.number().int().nullable().optional() }).optional(),
  }),
  z.object({ status: z.literal('error'), input: z.record(z.string(), z.unknown()), error: z.string() }),
  z.object({ status: z.enum(['pending', 'running']), input: z.record(z.string(), z.unknown()).optional() }),
]);
const ToolEvent = z.object({ part: z.object({ type: z.literal('tool'), callID: z.string().min(1), tool: z.string().min(1), state: ToolState }) });

interface PendingResult {
  callId: string;
  output: string;
  exitCode: number | null;
  isError: boolean;
  ref: string;
}

export function parseOpencode(text: string): CanonicalHistory {
  const lines = parseJsonLines(text, 'opencode events');
  let sessionId: string | null = null;
  const builder = () => (history ??= new HistoryBuilder('opencode', null, sessionId));
  let history: HistoryBuilder | null = null;
  let turn: { texts: string[]; calls: ToolCall[]; results: PendingResult[]; ref: string } | null = null;
  const closeTurn = () => {
    if (!turn) return;
    if (turn.texts.length > 0 || turn.calls.length > 0) builder().assistant(turn.texts.length > 0 ? turn.texts.join('\n') : null, turn.calls, turn.ref);
    for (const r of turn.results) builder().tool(r.callId, r.output, r.exitCode, r.isError, r.ref);
    turn = null;
  };
  for (const { line, value } of lines) {
    const ref = `line ${line}`;
    const event = expectShape(Event, value, `opencode ${ref}`);
    sessionId ??= event.sessionID ?? null;
    switch (event.type) {
      case 'user': {
        closeTurn();
        const user = expectShape(UserEvent, value, `opencode ${ref}`);
        builder().user(user.parts.map((p) => (p.type === 'text' ? p.text ?? '' : '')).join(''), ref);
        break;
      }
      case 'step_start':
        closeTurn();
        turn = { texts: [], calls: [], results: [], ref };
        break;
      case 'text':
        (turn ??= { texts: [], calls: [], results: [], ref }).texts.push(expectShape(TextEvent, value, `opencode ${ref}`).part.text);
        break;
      case 'tool_use': {
        const part = expectShape(ToolEvent, value, `opencode ${ref}`).part;
        turn ??= { texts: [], calls: [], results: [], ref };
        const input = part.state.input ?? {};
        turn.calls.push(part.tool === 'bash' && typeof input.command === 'string' ? shellCall(part.callID, part.tool, input.command) : { id: part.callID, kind: 'other', native_name: part.tool, arguments: input });
        if (part.state.status === 'completed') {
          turn.results.push({ callId: part.callID, output: part.state.output, exitCode: part.state.metadata?.exit ?? null, isError: false, ref });
        } else if (part.state.status === 'error') {
          turn.results.push({ callId: part.callID, output: part.state.error, exitCode: null, isError: true, ref });
        }
        break;
      }
      case 'step_finish':
        closeTurn();
        break;
      default:
        // reasoning, error and future event types carry nothing version 1 keeps
        break;
    }
  }
  closeTurn();
  if (!history) throw new ReplayError('schema_mismatch', 'opencode events hold no conversation');
  return (history as HistoryBuilder).build();
}
