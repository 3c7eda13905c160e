/**
 * Accumulates canonical messages in order and enforces the one structural rule every format shares:
 * a tool result must answer a call that appeared before it.
 */
import { AGENT_FORMATS, type ReplayAgent } from '../agents.ts';
import { CANONICAL_SCHEMA, type CanonicalHistory, type CanonicalMessage, type ToolCall } from '../canonical-history.ts';
import { ReplayError } from '../replay-error.ts';

export class HistoryBuilder {
  private readonly messages: CanonicalMessage[] = [];
  private readonly calls = new Set<string>();
  private readonly answered = new Set<string>();

  constructor(
    private readonly agent: ReplayAgent,
    private readonly recordedVersion: string | null,
    private readonly sessionId: string | null,
  ) {}

  system(text: string, ref: string): void {
    this.messages.push({ role: 'system', text, native_ref: ref });
  }

  user(text: string, ref: string): void {
    this.messages.push({ role: 'user', text, native_ref: ref });
  }

  assistant(text: string | null, toolCalls: ToolCall[], ref: string): void {
    for (const call of toolCalls) {
      if (this.calls.has(call.id)) throw new ReplayError('schema_mismatch', `${this.agent} ${ref}: tool call id "${call.id}" is used twice`);
      this.calls.add(call.id);
    }
    this.messages.push({ role: 'assistant', text, tool_calls: toolCalls, native_ref: ref });
  }

  /** Append text and calls to the previous assistant message (agents that split one turn over events). */
  extendAssistant(text: string | null, toolCalls: ToolCall[], ref: string): void {
    const last = this.messages[this.messages.length - 1];
    if (!last || last.role !== 'assistant') {
      this.assistant(text, toolCalls, ref);
      return;
    }
    for (const call of toolCalls) this.calls.add(call.id);
    last.text = text === null ? last.text : last.text === null ? text : `${last.text}\n${text}`;
    last.tool_calls.push(...toolCalls);
  }

  tool(callId: string, output: string, exitCode: number | null, isError: boolean | null, ref: string): void {
    if (!this.calls.has(callId)) {
      throw new ReplayError('orphan_tool_result', `${this.agent} ${ref}: tool result for call "${callId}" has no earlier tool call`);
    }
    if (this.answered.has(callId)) throw new ReplayError('schema_mismatch', `${this.agent} ${ref}: call "${callId}" has two results`);
    this.answered.add(callId);
    this.messages.push({ role: 'tool', call_id: callId, output, exit_code: exitCode, is_error: isError, native_ref: ref });
  }

  build(): CanonicalHistory {
    if (!this.messages.some((m) => m.role === 'user')) throw new ReplayError('schema_mismatch', `${this.agent} trajectory has no user message`);
    return {
      schema: CANONICAL_SCHEMA,
      source: {
        agent: this.agent,
        recorded_version: this.recordedVersion,
        modelled_version: AGENT_FORMATS[this.agent].version,
        session_id: this.sessionId,
      },
      messages: this.messages,
    };
  }
}

/** The canonical call for a native shell tool. */
export function shellCall(id: string, nativeName: string, command: string): ToolCall {
  return { id, kind: 'shell', native_name: nativeName, command };
}
