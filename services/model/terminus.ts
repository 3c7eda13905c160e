/**
 * Harbor's terminus-2 agent (harbor 0.25.0, harbor/agents/terminus_2/): it offers the model no
 * tools. Its prompt (templates/terminus-json-plain.txt) asks for one JSON object in the reply's
 * content, `{analysis, plan, commands: [{keystrokes, duration}], task_complete}`, and it types each
 * command's keystrokes into a tmux session, waits `duration` seconds, and sends the pane back as the
 * next user message. It ends only after `task_complete: true` twice: the second time answers its
 * confirmation question (terminus_2.py:716–745). Reference: field-integrations.md §4, 2026-12-02.
 *
 * The service recognises the protocol from the request itself (no tools, and the prompt carries the
 * format's field names), so no script or flag names the agent. A script drives it unchanged:
 *   turn index   the assistant messages the conversation holds (terminus sends no tool results)
 *   shell turn   one command batch: keystrokes = the command + "\n"; the turn's `args` are merged
 *                into the command object (`args: {duration: 3}` for a slow command; default 1.0 s,
 *                terminus' own default)
 *   text turn    `task_complete: true` with the text as the analysis; the request after it (the
 *                confirmation) gets the same reply, counted as the same turn
 *   fail turn    the HTTP error, as for every protocol; a `call` turn cannot be sent (no tools)
 * terminus' XML parser (`parser_name=xml`) is refused with the fix: the JSON one is its default.
 */
import type { ScriptTask, ScriptTurn } from './script.ts';
import type { RequestView } from './request-view.ts';

export type TerminusFormat = 'json' | 'xml';

/** terminus' default wait per command (terminus_2.py: duration defaults to 1.0 when absent). */
const DEFAULT_DURATION_S = 1.0;

/** The format a no-tools request asks the reply in, when it is terminus-2's prompt; null for any other request. */
export function terminusFormat(view: RequestView): TerminusFormat | null {
  if (view.tools.length > 0) return null;
  const text = view.promptText;
  if (text.includes('"keystrokes"') && text.includes('"task_complete"') && text.includes('"commands"')) return 'json';
  if (text.includes('<keystrokes') && text.includes('<task_complete>')) return 'xml';
  return null;
}

/** Why a terminus request cannot be answered from this turn (the caller raises it as its category). */
export class TerminusTurnError extends Error {
  constructor(
    readonly category: 'tool_mismatch' | 'script_exhausted',
    message: string,
    readonly turn: number,
  ) {
    super(message);
  }
}

/** The turns terminus-2 can be answered with (a `call` turn needs a tool it does not offer). */
export type TerminusScriptTurn = Exclude<ScriptTurn, { call: string }>;

export interface TerminusTurn {
  /** The script turn that answers (the final text turn also answers the confirmation request after it). */
  index: number;
  turn: TerminusScriptTurn;
}

/** The script turn a terminus request is at: its assistant messages, the confirmation folded onto the final text turn. */
export function terminusTurn(task: ScriptTask, view: RequestView, format: TerminusFormat): TerminusTurn {
  const at = view.assistantTurns;
  if (format === 'xml') {
    throw new TerminusTurnError('tool_mismatch', "terminus-2's XML format is not answered; run it with its default JSON parser (drop --ak parser_name=xml)", at);
  }
  const last = task.turns.length - 1;
  const confirming = at === last + 1 && 'text' in task.turns[last]!;
  const index = confirming ? last : at;
  const turn = task.turns[index];
  if (!turn) throw new TerminusTurnError('script_exhausted', `task "${task.id}" has ${task.turns.length} turns but terminus-2's conversation already holds ${at} replies (it went on after the final turn and its confirmation)`, at);
  if ('call' in turn) throw new TerminusTurnError('tool_mismatch', `task "${task.id}" turn ${index} calls tool ${turn.call}, but terminus-2 offers no tools (only shell and text turns drive it)`, index);
  return { index, turn };
}

/** The reply content of a shell or text turn: terminus' JSON object, keys in the order its parser checks. */
export function terminusContent(turn: Exclude<TerminusScriptTurn, { fail: number }>, index: number): string {
  if ('shell' in turn) {
    const command = { keystrokes: `${turn.shell}\n`, duration: DEFAULT_DURATION_S, ...turn.args };
    return JSON.stringify({ analysis: `sandbench scripted turn ${index}`, plan: `Run: ${turn.shell}`, commands: [command], task_complete: false });
  }
  return JSON.stringify({ analysis: turn.text, plan: 'The task is complete.', commands: [], task_complete: true });
}
