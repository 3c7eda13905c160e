/**
 * Cuts a canonical history after its N-th complete tool batch. A batch is one assistant message's
 * tool calls; it is complete once every call has its result. The prefix ends at the last result of
 * batch N, so a continuation resumes exactly where the (N+1)-th model request would be made, and the
 * next assistant turn (the "future action") is left out.
 */
import type { AssistantMessage, CanonicalHistory, CanonicalMessage, ToolCall, ToolMessage } from './canonical-history.ts';
import { ReplayError } from './replay-error.ts';

export interface ToolBatch {
  /** 1-based ordinal among the history's batches. */
  ordinal: number;
  assistantIndex: number;
  calls: ToolCall[];
  /** Index of the message holding the batch's last result; null while a call is unanswered. */
  completeAt: number | null;
}

export interface Prefix {
  afterStep: number;
  batch: ToolBatch;
  messages: CanonicalMessage[];
  keptCalls: ToolCall[];
  keptObservations: ToolMessage[];
  /** Index in the full history of the first message left out; null if the history ends at the boundary. */
  firstExcludedIndex: number | null;
  /** Tool calls of the next assistant turn after the boundary (not part of the prefix). */
  excludedNextCalls: number;
}

export function toolBatches(history: CanonicalHistory): ToolBatch[] {
  const batches: ToolBatch[] = [];
  const open = new Map<string, ToolBatch>();
  const pending = new Map<ToolBatch, Set<string>>();
  history.messages.forEach((message, index) => {
    if (message.role === 'assistant' && message.tool_calls.length > 0) {
      const batch: ToolBatch = { ordinal: batches.length + 1, assistantIndex: index, calls: message.tool_calls, completeAt: null };
      batches.push(batch);
      pending.set(batch, new Set(message.tool_calls.map((c) => c.id)));
      for (const call of message.tool_calls) open.set(call.id, batch);
    } else if (message.role === 'tool') {
      const batch = open.get(message.call_id);
      if (!batch) return;
      const waiting = pending.get(batch)!;
      waiting.delete(message.call_id);
      if (waiting.size === 0) batch.completeAt = index;
    }
  });
  return batches;
}

export function cutAfterStep(history: CanonicalHistory, afterStep: number): Prefix {
  if (!Number.isInteger(afterStep) || afterStep < 1) throw new ReplayError('boundary_out_of_range', `--after-step must be a positive integer, got ${afterStep}`);
  const batches = toolBatches(history);
  const batch = batches[afterStep - 1];
  if (!batch) throw new ReplayError('boundary_out_of_range', `after step ${afterStep} asked, but the trajectory has ${batches.length} tool batch(es)`);
  if (batch.completeAt === null) throw new ReplayError('boundary_out_of_range', `tool batch ${afterStep} (${history.messages[batch.assistantIndex]!.native_ref}) has a call without a result`);
  const end = batch.completeAt + 1;
  const messages = history.messages.slice(0, end);
  const next = history.messages.slice(end).find((m): m is AssistantMessage => m.role === 'assistant');
  return {
    afterStep,
    batch,
    messages,
    keptCalls: messages.flatMap((m) => (m.role === 'assistant' ? m.tool_calls : [])),
    keptObservations: messages.filter((m): m is ToolMessage => m.role === 'tool'),
    firstExcludedIndex: end < history.messages.length ? end : null,
    excludedNextCalls: next ? next.tool_calls.length : 0,
  };
}
