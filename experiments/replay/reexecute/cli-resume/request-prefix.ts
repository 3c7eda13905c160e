/**
 * What a resumed codex sent as the prefix, read from the recorded body of its first continuation
 * request (OpenAI Responses: `input` items). Pure: the judge (codex-continuation.ts) and tests use it.
 *   - prefix_calls_sent: how many of the prefix's calls, in order from the first, appear as a
 *     `function_call` followed by its `function_call_output` (the whole prefix = all of them);
 *   - tool_results: every `*_call_output` item (the scripted model's turn index);
 *   - outputs: each prefix call's tool result, unwrapped from the unified-exec envelope;
 *   - prompt_sent: the trajectory's user prompt is one of the user messages.
 */
import { unwrapExecOutput } from './codex-session.ts';

export interface SentPrefix {
  prefixCallsSent: number;
  toolResults: number;
  promptSent: boolean;
  outputs: Map<string, { output: string; exitCode: number | null; enveloped: boolean }>;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : '')).join('\n');
}

export function sentPrefix(body: string, prefixCalls: readonly string[], prompt: string): SentPrefix {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return { prefixCallsSent: 0, toolResults: 0, promptSent: false, outputs: new Map() };
  }
  const input = isObject(doc) && Array.isArray(doc.input) ? doc.input.filter(isObject) : [];
  const order: string[] = [];
  const answered = new Set<string>();
  const outputs: SentPrefix['outputs'] = new Map();
  let toolResults = 0;
  let promptSent = false;
  for (const item of input) {
    const type = typeof item.type === 'string' ? item.type : 'message';
    if (type === 'message' && item.role === 'user' && textOf(item.content) === prompt) promptSent = true;
    else if (type === 'function_call' && typeof item.call_id === 'string') order.push(item.call_id);
    else if (type.endsWith('_call_output')) {
      toolResults += 1;
      if (typeof item.call_id !== 'string' || !order.includes(item.call_id)) continue;
      answered.add(item.call_id);
      const raw = typeof item.output === 'string' ? item.output : textOf(item.output);
      const unwrapped = unwrapExecOutput(raw);
      outputs.set(item.call_id, unwrapped ? { ...unwrapped, enveloped: true } : { output: raw, exitCode: null, enveloped: false });
    }
  }
  let prefixCallsSent = 0;
  while (prefixCallsSent < prefixCalls.length && order[prefixCallsSent] === prefixCalls[prefixCallsSent] && answered.has(prefixCalls[prefixCallsSent]!)) prefixCallsSent += 1;
  return { prefixCallsSent, toolResults, promptSent, outputs };
}

/** The same reading of an Anthropic Messages body (Claude Code): `tool_use` blocks in assistant messages, `tool_result` blocks in user messages. */
export function sentAnthropicPrefix(body: string, prefixCalls: readonly string[], prompt: string): SentPrefix {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return { prefixCallsSent: 0, toolResults: 0, promptSent: false, outputs: new Map() };
  }
  const messages = isObject(doc) && Array.isArray(doc.messages) ? doc.messages.filter(isObject) : [];
  const order: string[] = [];
  const answered = new Set<string>();
  const outputs: SentPrefix['outputs'] = new Map();
  let toolResults = 0;
  let promptSent = false;
  for (const message of messages) {
    if (message.role === 'user' && textOf(message.content) === prompt) promptSent = true;
    const blocks = Array.isArray(message.content) ? message.content.filter(isObject) : [];
    for (const block of blocks) {
      if (message.role === 'assistant' && block.type === 'tool_use' && typeof block.id === 'string') order.push(block.id);
      else if (message.role === 'user' && block.type === 'tool_result') {
        toolResults += 1;
        if (typeof block.tool_use_id !== 'string' || !order.includes(block.tool_use_id)) continue;
        answered.add(block.tool_use_id);
        outputs.set(block.tool_use_id, { output: textOf(block.content), exitCode: null, enveloped: false });
      }
    }
  }
  let prefixCallsSent = 0;
  while (prefixCallsSent < prefixCalls.length && order[prefixCallsSent] === prefixCalls[prefixCallsSent] && answered.has(prefixCalls[prefixCallsSent]!)) prefixCallsSent += 1;
  return { prefixCallsSent, toolResults, promptSent, outputs };
}
