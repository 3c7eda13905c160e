/**
 * Which scripted reply answers a request: stateless, from the request alone.
 *   1. the task: named by the URL prefix /t/<task-id>/, else the first task whose prompt_contains
 *      is in the prompt, else the only task without prompt_contains;
 *   2. no tools in the request: Harbor terminus-2's JSON protocol when its prompt asks for it
 *      (terminus.ts: the turn is the assistant messages so far, the reply a JSON command batch);
 *      otherwise a title/summary side call → the script's side_reply text;
 *   3. otherwise turn = number of tool results so far; a shell turn becomes a call of the
 *      request's own shell tool, a text turn the final text — or, when the prompt carries
 *      mini-swe-agent's submit marker, its submit tool call (mini ends only on that), and when
 *      the request offers OpenHands' `finish` tool, that call; a `call` turn the named tool; a fail
 *      turn an HTTP error (fault injection: the model service failing, for the rollout kind).
 */
import { MINI_SUBMIT_MARKER, type ModelScript, type ScriptTask } from './script.ts';
import type { RequestView } from './request-view.ts';
import { buildShellCall, ToolMismatchError } from './shell-tool.ts';
import { buildNamedCall, finishCall } from './named-tool.ts';
import { terminusContent, terminusFormat, terminusTurn, TerminusTurnError } from './terminus.ts';

export type ReplyKind = 'tool' | 'text' | 'submit' | 'side' | 'fail';

export type Reply =
  | { kind: 'tool' | 'submit'; toolName: string; arguments: string }
  | { kind: 'text' | 'side'; text: string }
  /** A scripted upstream failure (fault injection): HTTP `status` in the protocol's error shape. */
  | { kind: 'fail'; status: number; message: string; retry: boolean };

export type CallReply = Extract<Reply, { toolName: string }>;

/** The tool call of a reply (tool or submit), or null for a text reply. */
export function callOf(reply: Reply): CallReply | null {
  return 'toolName' in reply ? reply : null;
}

/** The text of a text/side reply ('' for a call). */
export function textOf(reply: Reply): string {
  return 'text' in reply ? reply.text : '';
}

export interface Decision {
  taskId: string;
  /** Turn index that answered (null for side replies). */
  turn: number | null;
  reply: Reply;
  /** Output tokens of the reply (sets its service time); 0 for a fail reply (it takes base_ms only). */
  tokens: number;
}

/** Categories of scripted-reply failure; each is a clear 400 reply and a journal entry. */
export type ScriptFailure = 'no_task_matched' | 'tool_mismatch' | 'script_exhausted';

export class ScriptReplyError extends Error {
  constructor(
    readonly category: ScriptFailure,
    message: string,
    readonly taskId: string | null = null,
    readonly turn: number | null = null,
  ) {
    super(message);
  }
}

/** Default token count: ⌈UTF-8 bytes / 4⌉ of the reply payload, at least 1 (a fixed, documented rule). */
export function defaultTokens(payload: string): number {
  return Math.max(1, Math.ceil(Buffer.byteLength(payload, 'utf8') / 4));
}

function chooseTask(script: ModelScript, view: RequestView, pathTask: string | null): ScriptTask {
  const known = () => script.tasks.map((task) => task.id).join(', ');
  if (pathTask !== null) {
    const task = script.tasks.find((candidate) => candidate.id === pathTask);
    if (!task) throw new ScriptReplyError('no_task_matched', `script "${script.id}" has no task "${pathTask}" (named by the URL /t/${pathTask}/); its tasks: ${known()}`);
    return task;
  }
  const byPrompt = script.tasks.find((task) => task.prompt_contains !== undefined && view.promptText.includes(task.prompt_contains));
  if (byPrompt) return byPrompt;
  const defaults = script.tasks.filter((task) => task.prompt_contains === undefined);
  if (defaults.length === 1) return defaults[0];
  throw new ScriptReplyError(
    'no_task_matched',
    `script "${script.id}": no task matches this request (no /t/<task-id>/ URL prefix, no task's prompt_contains in the prompt${defaults.length > 1 ? `, and ${defaults.length} tasks have no prompt_contains` : ''}); its tasks: ${known()}`,
  );
}

function failDecision(script: ModelScript, task: ScriptTask, index: number, turn: { fail: number; message?: string; retry: boolean }): Decision {
  const message = turn.message ?? `scripted failure (script "${script.id}" task "${task.id}" turn ${index})`;
  return { taskId: task.id, turn: index, reply: { kind: 'fail', status: turn.fail, message, retry: turn.retry }, tokens: 0 };
}

/** terminus-2 (no tools): a shell turn is a JSON command batch, the final text turn `task_complete: true` (terminus.ts). */
function decideTerminus(script: ModelScript, task: ScriptTask, view: RequestView, format: 'json' | 'xml'): Decision {
  let at;
  try {
    at = terminusTurn(task, view, format);
  } catch (error) {
    if (error instanceof TerminusTurnError) throw new ScriptReplyError(error.category, `script "${script.id}": ${error.message}`, task.id, error.turn);
    throw error;
  }
  const { index, turn } = at;
  if ('fail' in turn) return failDecision(script, task, index, turn);
  const text = terminusContent(turn, index);
  return { taskId: task.id, turn: index, reply: { kind: 'text', text }, tokens: turn.tokens ?? defaultTokens(text) };
}

export function decide(script: ModelScript, view: RequestView, pathTask: string | null): Decision {
  const task = chooseTask(script, view, pathTask);
  const terminus = terminusFormat(view);
  if (terminus) return decideTerminus(script, task, view, terminus);
  if (view.tools.length === 0) {
    return { taskId: task.id, turn: null, reply: { kind: 'side', text: script.side_reply }, tokens: defaultTokens(script.side_reply) };
  }
  const index = view.toolResults;
  const turn = task.turns[index];
  if (!turn) {
    throw new ScriptReplyError(
      'script_exhausted',
      `script "${script.id}" task "${task.id}" has ${task.turns.length} turns but the request already holds ${index} tool results (the agent went on after the final turn)`,
      task.id,
      index,
    );
  }
  const fail = (error: unknown): never => {
    if (error instanceof ToolMismatchError) throw new ScriptReplyError('tool_mismatch', `script "${script.id}" task "${task.id}" turn ${index}: ${error.message}`, task.id, index);
    throw error;
  };
  if ('fail' in turn) return failDecision(script, task, index, turn);
  if ('shell' in turn) {
    let call;
    try {
      call = buildShellCall(view.tools, script.shell_tools, turn.shell, turn.args);
    } catch (error) {
      return fail(error);
    }
    return { taskId: task.id, turn: index, reply: { kind: 'tool', ...call }, tokens: turn.tokens ?? defaultTokens(call.arguments) };
  }
  if ('call' in turn) {
    let call;
    try {
      call = buildNamedCall(view.tools, turn.call, turn.args);
    } catch (error) {
      return fail(error);
    }
    return { taskId: task.id, turn: index, reply: { kind: 'tool', ...call }, tokens: turn.tokens ?? defaultTokens(call.arguments) };
  }
  // OpenHands ends only on its finish tool, as mini-swe-agent ends only on its submit command.
  const finish = finishCall(view.tools, turn.text);
  if (finish) return { taskId: task.id, turn: index, reply: { kind: 'submit', ...finish }, tokens: turn.tokens ?? defaultTokens(finish.arguments) };
  if (view.promptText.includes(MINI_SUBMIT_MARKER)) {
    let call;
    try {
      call = buildShellCall(view.tools, script.shell_tools, `echo ${MINI_SUBMIT_MARKER}`);
    } catch (error) {
      return fail(error);
    }
    return { taskId: task.id, turn: index, reply: { kind: 'submit', ...call }, tokens: turn.tokens ?? defaultTokens(call.arguments) };
  }
  return { taskId: task.id, turn: index, reply: { kind: 'text', text: turn.text }, tokens: turn.tokens ?? defaultTokens(turn.text) };
}
