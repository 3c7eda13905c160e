/**
 * One neutral view of a generation request, whatever its wire protocol: the tools it offers,
 * how many tool results its conversation holds (the script's turn index), and its prompt text.
 * Shapes per protocol are recorded in data/agents/protocols.md.
 */
export type Protocol = 'responses' | 'chat' | 'anthropic';

export interface ToolSpec {
  name: string;
  /** The tool's JSON schema (`parameters` or `input_schema`); {} when it declares none. */
  schema: Record<string, unknown>;
}

export interface RequestView {
  protocol: Protocol;
  stream: boolean;
  model: string;
  tools: ToolSpec[];
  toolResults: number;
  /** Assistant messages the conversation already holds: the turn index of agents that offer no tools (terminus.ts). */
  assistantTurns: number;
  /** System, instruction and user/assistant text (tool outputs excluded), for task matching. */
  promptText: string;
  /** Chat Completions `stream_options.include_usage`. */
  includeUsage: boolean;
}

export class BadRequestError extends Error {}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (isObject(part) && typeof part.text === 'string' && part.type !== 'tool_result' ? part.text : ''))
      .filter((text) => text !== '')
      .join('\n');
  }
  return '';
}

function schemaOf(value: unknown): Record<string, unknown> {
  return isObject(value) ? value : {};
}

function responsesView(body: Json): Omit<RequestView, 'protocol' | 'stream' | 'model' | 'includeUsage'> {
  const input = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
  const texts: string[] = typeof body.instructions === 'string' ? [body.instructions] : [];
  let toolResults = 0;
  let assistantTurns = 0;
  for (const item of input) {
    if (!isObject(item)) continue;
    const type = typeof item.type === 'string' ? item.type : 'message';
    // function_call_output, custom_tool_call_output, local_shell_call_output: one per executed call
    if (type.endsWith('_call_output')) toolResults += 1;
    else if (type === 'message') texts.push(textOf(item.content));
    if (type === 'message' && item.role === 'assistant') assistantTurns += 1;
  }
  const tools: ToolSpec[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (isObject(tool) && tool.type === 'function' && typeof tool.name === 'string') tools.push({ name: tool.name, schema: schemaOf(tool.parameters) });
  }
  return { tools, toolResults, assistantTurns, promptText: texts.join('\n') };
}

function chatView(body: Json): Omit<RequestView, 'protocol' | 'stream' | 'model' | 'includeUsage'> {
  if (!Array.isArray(body.messages)) throw new BadRequestError('a Chat Completions request needs a `messages` array');
  const texts: string[] = [];
  let toolResults = 0;
  let assistantTurns = 0;
  for (const message of body.messages) {
    if (!isObject(message)) continue;
    if (message.role === 'tool' || message.role === 'function') toolResults += 1;
    else texts.push(textOf(message.content));
    if (message.role === 'assistant') assistantTurns += 1;
  }
  const tools: ToolSpec[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    const fn = isObject(tool) ? tool.function : undefined;
    if (isObject(fn) && typeof fn.name === 'string') tools.push({ name: fn.name, schema: schemaOf(fn.parameters) });
  }
  return { tools, toolResults, assistantTurns, promptText: texts.join('\n') };
}

function anthropicView(body: Json): Omit<RequestView, 'protocol' | 'stream' | 'model' | 'includeUsage'> {
  if (!Array.isArray(body.messages)) throw new BadRequestError('an Anthropic Messages request needs a `messages` array');
  const texts: string[] = [textOf(body.system)];
  let toolResults = 0;
  let assistantTurns = 0;
  for (const message of body.messages) {
    if (!isObject(message)) continue;
    if (message.role === 'assistant') assistantTurns += 1;
    if (Array.isArray(message.content)) {
      for (const block of message.content) if (isObject(block) && block.type === 'tool_result') toolResults += 1;
    }
    texts.push(textOf(message.content));
  }
  const tools: ToolSpec[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (isObject(tool) && typeof tool.name === 'string') tools.push({ name: tool.name, schema: schemaOf(tool.input_schema) });
  }
  return { tools, toolResults, assistantTurns, promptText: texts.filter((text) => text !== '').join('\n') };
}

/** Parse a generation request body; throws BadRequestError with a reason when it is not one. */
export function viewRequest(protocol: Protocol, raw: Buffer): RequestView {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new BadRequestError(`the request body is not JSON (${(error as Error).message})`);
  }
  if (!isObject(body)) throw new BadRequestError('the request body must be a JSON object');
  const parts = protocol === 'responses' ? responsesView(body) : protocol === 'chat' ? chatView(body) : anthropicView(body);
  const streamOptions = isObject(body.stream_options) ? body.stream_options : {};
  return {
    protocol,
    stream: body.stream === true,
    model: typeof body.model === 'string' ? body.model : 'fake-model',
    includeUsage: streamOptions.include_usage === true,
    ...parts,
  };
}
