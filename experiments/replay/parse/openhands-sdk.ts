/**
 * OpenHands SDK (V1, openhands-sdk 1.34.0) events → canonical history: what the agent kind's
 * `openhands` variant records (persistence_dir's event-*.json files joined into one array by
 * experiments/agent/openhands_runner.py). Unlike the 0.53 export (openhands.ts), each event names
 * its `kind`: SystemPromptEvent, MessageEvent (user or agent text), ActionEvent (a tool call:
 * `tool_name`, `tool_call_id`, `action`; `terminal` is the shell), ObservationEvent (its result,
 * joined by `tool_call_id`). Other kinds (state updates, condensation) answer no call and are skipped.
 * The events record no SDK version, so the recorded version is null.
 */
import { z } from 'zod';
import type { CanonicalHistory } from '../canonical-history.ts';
import { expectShape } from './edge.ts';
import { HistoryBuilder, shellCall } from './history-builder.ts';

const TextBlock = z.object({ type: z.string(), text: z.string().optional() });
const Texts = z.array(TextBlock);
const Kind = z.object({ kind: z.string() });
const SystemPrompt = z.object({ system_prompt: z.object({ text: z.string() }) });
const Message = z.object({ source: z.string(), llm_message: z.object({ content: Texts }) });
const Action = z.object({
  tool_name: z.string().min(1),
  tool_call_id: z.string().min(1),
  thought: Texts.optional(),
  action: z.record(z.string(), z.unknown()),
});
const Observation = z.object({
  tool_call_id: z.string().min(1),
  observation: z.object({ content: Texts, exit_code: z.number().int().nullable().optional(), is_error: z.boolean().optional() }),
});

/** The shell tool of the SDK (openhands-tools' TerminalTool). */
const SHELL_TOOL = 'terminal';

const joinText = (blocks: z.infer<typeof Texts>): string => blocks.map((block) => block.text ?? '').join('');

/** True when the array holds SDK events (each names its `kind`), not the 0.53 export. */
export function isSdkEvents(events: readonly unknown[]): boolean {
  return events.length > 0 && Kind.safeParse(events[0]).success;
}

export function parseOpenhandsSdk(events: readonly unknown[]): CanonicalHistory {
  const builder = new HistoryBuilder('openhands', null, null);
  events.forEach((raw, i) => {
    const ref = `[${i}]`;
    const where = `openhands sdk event ${ref}`;
    const { kind } = expectShape(Kind, raw, where);
    if (kind === 'SystemPromptEvent') builder.system(expectShape(SystemPrompt, raw, where).system_prompt.text, ref);
    else if (kind === 'MessageEvent') {
      const message = expectShape(Message, raw, where);
      const text = joinText(message.llm_message.content);
      if (message.source === 'user') builder.user(text, ref);
      else builder.assistant(text, [], ref);
    } else if (kind === 'ActionEvent') {
      const event = expectShape(Action, raw, where);
      const thought = event.thought ? joinText(event.thought) : '';
      const command = event.action.command;
      const call =
        event.tool_name === SHELL_TOOL && typeof command === 'string'
          ? shellCall(event.tool_call_id, SHELL_TOOL, command)
          : { id: event.tool_call_id, kind: 'other' as const, native_name: event.tool_name, arguments: event.action };
      builder.assistant(thought === '' ? null : thought, [call], ref);
    } else if (kind === 'ObservationEvent') {
      const event = expectShape(Observation, raw, where);
      const exit = event.observation.exit_code ?? null;
      builder.tool(event.tool_call_id, joinText(event.observation.content), exit, event.observation.is_error ?? (exit === null ? null : exit !== 0), ref);
    }
  });
  return builder.build();
}
