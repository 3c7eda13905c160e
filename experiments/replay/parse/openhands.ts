/**
 * OpenHands event array → canonical history. `message` actions are user or assistant text; a `run`
 * action is a shell call (id = its LLM tool_call_id when recorded, else `event-<id>`), answered by the
 * observation whose `cause` is the action's event id. Other tool actions become `other` calls. The
 * export records no version, so the modelled release is assumed. An array of SDK events (V1) goes
 * to openhands-sdk.ts.
 */
import { z } from 'zod';
import type { CanonicalHistory } from '../canonical-history.ts';
import { ReplayError } from '../replay-error.ts';
import { expectShape, parseJsonDocument } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';
import { isSdkEvents, parseOpenhandsSdk } from './openhands-sdk.ts';

const Event = z.object({
  id: z.number().int(),
  source: z.string(),
  action: z.string().optional(),
  observation: z.string().optional(),
  cause: z.number().int().nullable().optional(),
  tool_call_metadata: z.object({ tool_call_id: z.string().min(1), function_name: z.string().min(1) }).nullable().optional(),
});
const MessageAction = z.object({ args: z.object({ content: z.string() }) });
const RunAction = z.object({ args: z.object({ command: z.string(), thought: z.string().optional() }) });
const ToolAction = z.object({ args: z.record(z.string(), z.unknown()).optional() });
const Observation = z.object({
  content: z.string(),
  extras: z
    .object({ exit_code: z.number().int().optional(), metadata: z.object({ exit_code: z.number().int().optional() }).optional() })
    .optional(),
});

export function parseOpenhands(text: string): CanonicalHistory {
  const value = parseJsonDocument(text, 'openhands events');
  const events = expectShape(z.array(z.unknown()), value, 'openhands events');
  // The SDK's (V1) events name their kind; the agent kind's openhands variant records those.
  if (isSdkEvents(events)) return parseOpenhandsSdk(events);
  const builder = new HistoryBuilder('openhands', null, null);
  // action event id -> canonical call id, for observations' `cause`
  const callByAction = new Map<number, string>();
  events.forEach((raw, i) => {
    const ref = `[${i}]`;
    const event = expectShape(Event, raw, `openhands event ${ref}`);
    if (event.action === 'message') {
      const content = expectShape(MessageAction, raw, `openhands event ${ref}`).args.content;
      if (event.source === 'user') builder.user(content, ref);
      else if (event.source === 'agent') builder.assistant(content, [], ref);
    } else if (event.action === 'run') {
      const args = expectShape(RunAction, raw, `openhands event ${ref}`).args;
      const id = event.tool_call_metadata?.tool_call_id ?? `event-${event.id}`;
      callByAction.set(event.id, id);
      builder.assistant(args.thought ? args.thought : null, [shellCall(id, 'run', args.command)], ref);
    } else if (event.action !== undefined && event.tool_call_metadata) {
      const id = event.tool_call_metadata.tool_call_id;
      callByAction.set(event.id, id);
      builder.assistant(null, [{ id, kind: 'other', native_name: event.action, arguments: expectShape(ToolAction, raw, `openhands event ${ref}`).args ?? {} }], ref);
    } else if (event.observation !== undefined) {
      const callId = event.cause === null || event.cause === undefined ? undefined : callByAction.get(event.cause);
      if (callId === undefined) {
        // A command output nobody asked for cannot be placed in a replayable history.
        if (event.observation === 'run') {
          throw new ReplayError('orphan_tool_result', `openhands event ${ref}: run observation's cause ${event.cause ?? 'null'} is no earlier tool action`);
        }
        return; // recall / state-change observations answer no tool call
      }
      const obs = expectShape(Observation, raw, `openhands event ${ref}`);
      const exit = obs.extras?.metadata?.exit_code ?? obs.extras?.exit_code ?? null;
      builder.tool(callId, obs.content, exit, exit === null ? null : exit !== 0, ref);
    }
  });
  return builder.build();
}
