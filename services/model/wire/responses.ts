/**
 * OpenAI Responses API replies (codex; pi `openai-responses`; opencode `@ai-sdk/openai`).
 * Streams the full event sequence: pi and opencode fail on the short form codex alone accepts
 * (agent-clis reference §3, measured 2026-12-01).
 */
import { CREATED_AT, jsonBody, tokenPieces, type Frame, type RenderContext, type Rendered } from './frames.ts';
import { callOf, textOf } from '../decide.ts';

type Item = Record<string, unknown>;

function usage(ctx: RenderContext) {
  const output = ctx.decision.tokens;
  return {
    input_tokens: ctx.inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: ctx.inputTokens + output,
  };
}

function responseObject(ctx: RenderContext, status: 'in_progress' | 'completed', output: Item[]) {
  return {
    id: `resp_${ctx.idStem}`,
    object: 'response',
    created_at: CREATED_AT,
    status,
    error: null,
    incomplete_details: null,
    model: ctx.model,
    output,
    parallel_tool_calls: false,
    tool_choice: 'auto',
    usage: status === 'completed' ? usage(ctx) : null,
  };
}

function finalItem(ctx: RenderContext): Item {
  const call = callOf(ctx.decision.reply);
  if (call) {
    return { type: 'function_call', id: `fc_${ctx.idStem}`, call_id: `call_${ctx.idStem}`, name: call.toolName, arguments: call.arguments, status: 'completed' };
  }
  return { type: 'message', id: `msg_${ctx.idStem}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: textOf(ctx.decision.reply), annotations: [] }] };
}

export function renderResponses(ctx: RenderContext, stream: boolean): Rendered {
  const item = finalItem(ctx);
  if (!stream) return jsonBody(responseObject(ctx, 'completed', [item]), ctx.decision.tokens);
  const frames: Frame[] = [];
  let sequence = 0;
  const event = (type: string, payload: Record<string, unknown>, tokenIndex: number | null = null) => {
    frames.push({ data: `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...payload })}\n\n`, tokenIndex });
    sequence += 1;
  };
  event('response.created', { response: responseObject(ctx, 'in_progress', []) });
  event('response.in_progress', { response: responseObject(ctx, 'in_progress', []) });
  const call = callOf(ctx.decision.reply);
  const text = textOf(ctx.decision.reply);
  const itemId = item.id as string;
  if (call) {
    event('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
    for (const piece of tokenPieces(call.arguments, ctx.decision.tokens)) {
      event('response.function_call_arguments.delta', { item_id: itemId, output_index: 0, delta: piece.text }, piece.tokenIndex);
    }
    event('response.function_call_arguments.done', { item_id: itemId, output_index: 0, arguments: call.arguments });
  } else {
    event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    event('response.content_part.added', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    for (const piece of tokenPieces(text, ctx.decision.tokens)) {
      event('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: piece.text }, piece.tokenIndex);
    }
    event('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text: text });
    event('response.content_part.done', { item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: text, annotations: [] } });
  }
  event('response.output_item.done', { output_index: 0, item });
  event('response.completed', { response: responseObject(ctx, 'completed', [item]) });
  return { status: 200, contentType: 'text/event-stream', frames };
}
