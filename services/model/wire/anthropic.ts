/**
 * Anthropic Messages replies (Claude Code; pi `anthropic-messages`): named SSE events
 * message_start, content_block_start/delta/stop, message_delta, message_stop; or one JSON message.
 */
import { jsonBody, tokenPieces, type Frame, type RenderContext, type Rendered } from './frames.ts';
import { callOf, textOf } from '../decide.ts';

export function renderAnthropic(ctx: RenderContext, stream: boolean): Rendered {
  const reply = ctx.decision.reply;
  const call = callOf(reply);
  const text = textOf(reply);
  const id = `msg_${ctx.idStem}`;
  const stopReason = call ? 'tool_use' : 'end_turn';
  const block = call ? { type: 'tool_use', id: `toolu_${ctx.idStem}`, name: call.toolName, input: JSON.parse(call.arguments) as unknown } : { type: 'text', text: text };
  const usage = { input_tokens: ctx.inputTokens, output_tokens: ctx.decision.tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!stream) {
    return jsonBody({ id, type: 'message', role: 'assistant', model: ctx.model, content: [block], stop_reason: stopReason, stop_sequence: null, usage }, ctx.decision.tokens);
  }
  const frames: Frame[] = [];
  const event = (type: string, payload: Record<string, unknown>, tokenIndex: number | null = null) =>
    frames.push({ data: `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`, tokenIndex });
  event('message_start', { message: { id, type: 'message', role: 'assistant', model: ctx.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  if (call) {
    event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${ctx.idStem}`, name: call.toolName, input: {} } });
    for (const piece of tokenPieces(call.arguments, ctx.decision.tokens)) {
      event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: piece.text } }, piece.tokenIndex);
    }
  } else {
    event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    for (const piece of tokenPieces(text, ctx.decision.tokens)) {
      event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: piece.text } }, piece.tokenIndex);
    }
  }
  event('content_block_stop', { index: 0 });
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: ctx.decision.tokens } });
  event('message_stop', {});
  return { status: 200, contentType: 'text/event-stream', frames };
}
