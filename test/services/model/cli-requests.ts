/**
 * Request shapes of each agent CLI, as measured against a local server (agent-clis reference,
 * 2026-12-01; copied into data/agents/protocols.md). Bodies keep the keys and tool schemas the
 * CLIs send; long prompts are shortened. `turn2` adds the executed tool call and its result.
 */
const PROMPT = 'Create marker.txt containing fixture using the shell tool, then reply done.';

// codex 0.169.0: POST {base_url}/responses, flat function tools, exec_command takes {cmd, …}
const codexTools = [
  { type: 'function', name: 'exec_command', description: 'Runs a command in a PTY', strict: false, parameters: { type: 'object', properties: { cmd: { type: 'string' }, workdir: { type: 'string' }, tty: { type: 'boolean' }, login: { type: 'boolean' }, yield_time_ms: { type: 'number' }, max_output_tokens: { type: 'number' } }, required: ['cmd'], additionalProperties: false } },
  { type: 'function', name: 'write_stdin', parameters: { type: 'object', properties: { session_id: { type: 'number' }, chars: { type: 'string' } }, required: ['session_id'] } },
  { type: 'function', name: 'request_user_input', parameters: { type: 'object', properties: { questions: { type: 'array' } }, required: ['questions'] } },
  { type: 'function', name: 'view_image', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  { type: 'namespace', name: 'multi_agent_v1', tools: [] },
  { type: 'web_search', external_web_access: false },
];

export function codexRequest(turn: 1 | 2) {
  const input: unknown[] = [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>approval_policy never</permissions instructions>' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: PROMPT }] },
  ];
  if (turn === 2) {
    input.push({ type: 'function_call', call_id: 'call_x', name: 'exec_command', arguments: '{"cmd":"printf fixture > marker.txt"}' });
    input.push({ type: 'function_call_output', call_id: 'call_x', output: 'Chunk ID: 1\nWall time: 0.01 seconds\nProcess exited with code 0\nOutput:\n' });
  }
  return {
    model: 'fake-model',
    instructions: 'You are Codex, a coding agent.',
    input,
    tools: codexTools,
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '0199-session',
    client_metadata: { originator: 'codex_exec' },
  };
}

// Claude Code 2.1.332 --bare --tools Bash: POST /v1/messages?beta=true
const claudeTools = [
  {
    name: 'Bash',
    description: 'Executes a given bash command',
    input_schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'number' }, description: { type: 'string' }, run_in_background: { type: 'boolean' } }, required: ['command'], additionalProperties: false },
  },
];

export function claudeRequest(turn: 1 | 2) {
  const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }];
  if (turn === 2) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'Bash', input: { command: 'printf fixture > marker.txt' } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: '(Bash completed with no output)', is_error: false }] });
  }
  return {
    model: 'fake-model',
    messages,
    system: [{ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude." }],
    tools: claudeTools,
    metadata: { user_id: 'user_x' },
    max_tokens: 32000,
    thinking: { type: 'adaptive' },
    context_management: { edits: [] },
    output_config: { effort: 'medium' },
    stream: true,
  };
}

export const CLAUDE_HEADERS = { 'x-api-key': 'sk-fake', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14' };

// pi 0.73.1 (openai-completions) and opencode 1.18.33 (@ai-sdk/openai-compatible): Chat Completions, streaming
const piTools = [{ type: 'function', function: { name: 'bash', description: 'Execute a bash command', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'number' } }, required: ['command'] } } }];
const opencodeTools = [
  { type: 'function', function: { name: 'bash', description: 'Executes a given bash command', parameters: { type: 'object', properties: { command: { type: 'string' }, timeout: { type: 'number' }, workdir: { type: 'string' }, description: { type: 'string' } }, required: ['command', 'description'], additionalProperties: false } } },
  { type: 'function', function: { name: 'read', parameters: { type: 'object', properties: { filePath: { type: 'string' } }, required: ['filePath'] } } },
];

function chatMessages(system: string, turn: 1 | 2, toolName: string) {
  const messages: unknown[] = [{ role: 'system', content: system }, { role: 'user', content: PROMPT }];
  if (turn === 2) {
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id: 'call_x', type: 'function', function: { name: toolName, arguments: '{"command":"printf fixture > marker.txt"}' } }] });
    messages.push({ role: 'tool', tool_call_id: 'call_x', content: '' });
  }
  return messages;
}

export function piRequest(turn: 1 | 2) {
  return { model: 'fake-model', messages: chatMessages('You are an expert coding assistant.', turn, 'bash'), tools: piTools, stream: true, stream_options: { include_usage: true }, store: false, max_completion_tokens: 16384 };
}

export function opencodeRequest(turn: 1 | 2) {
  return { model: 'fake-model', messages: chatMessages('You are opencode, an interactive CLI tool.', turn, 'bash'), tools: opencodeTools, tool_choice: 'auto', stream: true, stream_options: { include_usage: true }, max_tokens: 32000 };
}

/** opencode's title side call: no tools. */
export function opencodeTitleRequest() {
  return { model: 'fake-model', messages: [{ role: 'system', content: 'You are a title generator.' }, { role: 'user', content: PROMPT }], stream: true, stream_options: { include_usage: true }, max_tokens: 32000 };
}

// mini-swe-agent 2.4.6 via litellm: Chat Completions, no `stream`, body {model, messages, tools}
const miniTools = [{ type: 'function', function: { name: 'bash', description: 'Execute a bash command', parameters: { type: 'object', properties: { command: { type: 'string', description: 'The bash command to execute' } }, required: ['command'] } } }];

export function miniRequest(turn: 1 | 2) {
  const system = 'You are a helpful assistant that can interact with a computer. When done, issue: echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT';
  return { model: 'fake-model', messages: chatMessages(system, turn, 'bash'), tools: miniTools };
}
