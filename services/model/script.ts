/**
 * Model scripts: what the deterministic model service answers, as data (YAML or JSON).
 * A script holds tasks; a task holds turns. The turn that answers a request is chosen from the
 * request alone (how many tool results the conversation already holds), so client retries and
 * side requests can never move the script forward or derail it.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const MODEL_SCRIPT_SCHEMA = 'sandbench-model-script/1';

/** mini-swe-agent ends its loop only on this command's output (agent-clis reference, 2026-12-01). */
export const MINI_SUBMIT_MARKER = 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT';

const tokenCount = z.number().int().min(1).max(1_000_000);

const ShellTurnSchema = z
  .object({
    /** The shell command the agent's shell tool runs (`cmd`/`command` property, string or argv per the tool's schema). */
    shell: z.string().min(1),
    /** Extra tool arguments, merged over the ones built from the tool's schema. */
    args: z.record(z.string(), z.unknown()).optional(),
    /** Output tokens the reply counts as (service time = base_ms + per_token_ms × tokens); default ⌈bytes/4⌉ of the arguments. */
    tokens: tokenCount.optional(),
  })
  .strict();

const TextTurnSchema = z
  .object({
    /** Final assistant text (for mini-swe-agent: rendered as its submit tool call instead). */
    text: z.string(),
    tokens: tokenCount.optional(),
  })
  .strict();

const FailTurnSchema = z
  .object({
    /** Fault injection: answer with this HTTP status in the protocol's error shape, after base_ms in a slot (an upstream failing). */
    fail: z.number().int().min(400).max(599),
    message: z.string().optional(),
    /** Sent as `x-should-retry` (honoured by the Anthropic and OpenAI SDKs): false by default, so a client fails at once instead of retrying with backoff (Claude Code retried a 503 for > 3 min). */
    retry: z.boolean().default(false),
  })
  .strict();

const CallTurnSchema = z
  .object({
    /** A tool of the request called by name (OpenHands' `file_editor`, `think`), with these arguments; required ones it omits are filled from the tool's schema. */
    call: z.string().min(1),
    args: z.record(z.string(), z.unknown()).default({}),
    tokens: tokenCount.optional(),
  })
  .strict();

export const TurnSchema = z.union([ShellTurnSchema, TextTurnSchema, FailTurnSchema, CallTurnSchema]);

const TaskSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'a task id has only letters, digits, ".", "_" and "-" (it appears in URL paths: /t/<task-id>/…)'),
    /** Chooses this task for requests whose prompt text contains the string (when the URL names no task). */
    prompt_contains: z.string().min(1).optional(),
    turns: z.array(TurnSchema).min(1),
  })
  .strict()
  .superRefine((task, ctx) => {
    const last = task.turns[task.turns.length - 1];
    if (last && ('shell' in last || 'call' in last)) {
      ctx.addIssue({ code: 'custom', path: ['turns', task.turns.length - 1], message: 'the last turn must be a final `text` turn (or a `fail` turn), so the agent loop ends' });
    }
  });

export const ModelScriptSchema = z
  .object({
    schema: z.literal(MODEL_SCRIPT_SCHEMA),
    id: z.string().regex(/^[A-Za-z0-9_.-]+$/, 'a script id has only letters, digits, ".", "_" and "-"'),
    description: z.string().optional(),
    /** Model ids answered by GET …/models (any model id in a request is accepted). */
    models: z.array(z.string().min(1)).min(1).default(['fake-model']),
    /** Shell tool names, in order of preference, looked up in each request's own tool list. */
    shell_tools: z.array(z.string().min(1)).min(1).default(['exec_command', 'Bash', 'bash', 'shell', 'terminal']),
    /** Answer to generation requests that carry no tools at all (title or summary side calls). */
    side_reply: z.string().default('done'),
    tasks: z.array(TaskSchema).min(1),
  })
  .strict()
  .superRefine((script, ctx) => {
    const seen = new Map<string, number>();
    script.tasks.forEach((task, index) => {
      const first = seen.get(task.id);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['tasks', index, 'id'], message: `duplicate task id "${task.id}" (also tasks[${first}].id)` });
      else seen.set(task.id, index);
    });
  });

export type ModelScript = z.infer<typeof ModelScriptSchema>;
export type ScriptTask = ModelScript['tasks'][number];
export type ScriptTurn = z.infer<typeof TurnSchema>;
export type ModelScriptInput = z.input<typeof ModelScriptSchema>;

/** Bad script input; the message names the file and field. */
export class ModelScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelScriptError';
  }
}

function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  if (path.length === 0) return '(top level)';
  return path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index === 0 ? '' : '.'}${String(part)}`)).join('');
}

/** Validate an already-parsed script (programmatic use by kinds); `source` names it in errors. */
export function parseModelScript(value: unknown, source: string): ModelScript {
  const result = ModelScriptSchema.safeParse(value);
  if (result.success) return result.data;
  const lines = result.error.issues.map((issue) => `${source}: field ${fieldPath(issue.path)}: ${issue.message}`);
  throw new ModelScriptError(
    `${lines.join('; ')} (a model script is {schema: ${MODEL_SCRIPT_SCHEMA}, id, tasks: [{id, turns: [{shell: CMD} | {text: TEXT}]}]}; see data/model-scripts/)`,
  );
}

/** Read and validate a script file (.yaml, .yml or .json). */
export function loadModelScript(path: string): ModelScript {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ModelScriptError(`${path}: cannot read the model script (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  let value: unknown;
  try {
    value = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new ModelScriptError(`${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseModelScript(value, path);
}
