/**
 * OpenAI Chat Completions replies (pi `openai-completions`, opencode `@ai-sdk/openai-compatible`,
 * mini-swe-agent via litellm — the last one non-streaming). Streaming: `data:` chunks, no event
 * names, a usage chunk when `stream_options.include_usage`, then `data: [DONE]`.
 */
import { CREATED_AT, jsonBody, tokenPieces, type Frame, type RenderContext, type Rendered } from './frames.ts';
import { callOf, textOf } from '../decide.ts';

function usage(ctx: RenderContext) {
  return { prompt_tokens: ctx.inputTokens, completion_tokens: ctx.decision.tokens, total_tokens: ctx.inputTokens + ctx.decision.tokens };
}

export function renderChat(ctx: RenderContext, stream: boolean): Rendered {
  const reply = ctx.decision.reply;
  const call = callOf(reply);
  const text = textOf(reply);
  const id = `chatcmpl-${ctx.idStem}`;
  const callId = `call_${ctx.idStem}`;
  const finish = call ? 'tool_calls' : 'stop';
  if (!stream) {
    const message = call
      ? { role: 'assistant', content: null, tool_calls: [{ id: callId, type: 'function', function: { name: call.toolName, arguments: call.arguments } }] }
      : { role: 'assistant', content: text };
    return jsonBody({ id, object: 'chat.completion', created: CREATED_AT, model: ctx.model, choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage: usage(ctx) }, ctx.decision.tokens);
  }
  const frames: Frame[] = [];
  const chunk = (choices: unknown[], tokenIndex: number | null = null, extra: Record<string, unknown> = {}) =>
    frames.push({ data: `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: CREATED_AT, model: ctx.model, choices, ...extra })}\n\n`, tokenIndex });
  if (call) {
    chunk([{ index: 0, delta: { role: 'assistant', content: null, tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: call.toolName, arguments: '' } }] }, finish_reason: null }]);
    for (const piece of tokenPieces(call.arguments, ctx.decision.tokens)) {
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: piece.text } }] }, finish_reason: null }], piece.tokenIndex);
    }
  } else {
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    for (const piece of tokenPieces(text, ctx.decision.tokens)) {
      chunk([{ index: 0, delta: { content: piece.text }, finish_reason: null }], piece.tokenIndex);
    }
  }
  chunk([{ index: 0, delta: {}, finish_reason: finish }]);
  if (ctx.includeUsage) chunk([], null, { usage: usage(ctx) });
  frames.push({ data: 'data: [DONE]\n\n', tokenIndex: null });
  return { status: 200, contentType: 'text/event-stream', frames };
}
