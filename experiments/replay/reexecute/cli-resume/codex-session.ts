/**
 * The bridge from a codex-format trajectory to the session store of the codex the agent layer
 * builds (issue 19). The seven-format generator pins codex 0.149.0's rollout shape; the layer is
 * codex 0.169.0 (experiments/agent/agents.ts). The two differ in what a tool result holds: 0.149.0's
 * `function_call_output.output` is the plain shell output, 0.169.0's is the unified-exec envelope
 * (`Chunk ID`, `Wall time`, `Process exited with code N`, `Original token count`, `Output:` then
 * the output). So the prefix is never copied line for line: it is parsed into sandbench's canonical
 * history (parse/codex.ts), cut after the ground truth's step, and written from there into the
 * layer version's shape. Facts and their evidence: data/agents/codex-session-format.md.
 *
 * What is known only inside the sandbox after the replay (the replayed outputs, the workspace path,
 * the time) is left to the in-sandbox seeder (seed-codex-session.py): here each tool result is a
 * slot naming the call whose replayed output fills it.
 */
import { CANONICAL_SCHEMA, type CanonicalMessage } from '../../canonical-history.ts';
import { cutAfterStep } from '../../cut-prefix.ts';
import { parseTrajectory } from '../../prepare-prefix.ts';
import type { FixtureEntry } from '../../replay-fixtures.ts';
import { readFileSync } from 'node:fs';

export const CODEX_SESSION_TEMPLATE_SCHEMA = 'sandbench.codex-session-template/1';
/** The shell tool of codex 0.169.0 and its argument (unchanged from 0.149.0). */
export const CODEX_SHELL_TOOL = 'exec_command';

type Item =
  | { type: 'message'; role: 'user' | 'assistant'; content: { type: 'input_text' | 'output_text'; text: string }[] }
  | { type: 'function_call'; name: string; arguments: string; call_id: string }
  /** A slot: the seeder writes the replayed output of `call_id` in the envelope. */
  | { type: 'function_call_output'; call_id: string; output: null };

export interface CodexSessionTemplate {
  schema: typeof CODEX_SESSION_TEMPLATE_SCHEMA;
  /** The layer's release the session is written for (session_meta.cli_version). */
  cli_version: string;
  bridged_from: { format: 'codex'; recorded_version: string | null; modelled_version: string; canonical_schema: string; session_id: string | null; after_step: number };
  /** response_item payloads, in order: the prompt, each turn's text, call and result slot. */
  items: Item[];
  /** Call ids of the prefix in order (every one has a slot). */
  calls: string[];
  /** Canonical messages that have no place in the session (system text: codex sends its own base instructions). */
  dropped: string[];
}

/** Why a prefix cannot be written as a CLI's session: a categorized setup failure, never a guess. */
export class SessionBridgeError extends Error {}
export const CodexSessionError = SessionBridgeError;

export function codexSessionTemplate(messages: readonly CanonicalMessage[], meta: Omit<CodexSessionTemplate['bridged_from'], 'format' | 'canonical_schema'>, cliVersion: string): CodexSessionTemplate {
  const items: Item[] = [];
  const calls: string[] = [];
  const dropped: string[] = [];
  for (const message of messages) {
    if (message.role === 'system') dropped.push(`system text at ${message.native_ref}`);
    else if (message.role === 'user') items.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: message.text }] });
    else if (message.role === 'assistant') {
      if (message.text) items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: message.text }] });
      for (const call of message.tool_calls) {
        if (call.kind !== 'shell') throw new SessionBridgeError(`call ${call.id} (${call.native_name}) at ${message.native_ref} is not a shell call; codex ${cliVersion}'s ${CODEX_SHELL_TOOL} cannot carry it`);
        items.push({ type: 'function_call', name: CODEX_SHELL_TOOL, arguments: JSON.stringify({ cmd: call.command }), call_id: call.id });
        calls.push(call.id);
      }
    } else {
      if (!calls.includes(message.call_id)) throw new SessionBridgeError(`tool result ${message.call_id} at ${message.native_ref} answers no call of the prefix`);
      items.push({ type: 'function_call_output', call_id: message.call_id, output: null });
    }
  }
  return { schema: CODEX_SESSION_TEMPLATE_SCHEMA, cli_version: cliVersion, bridged_from: { format: 'codex', canonical_schema: CANONICAL_SCHEMA, ...meta }, items, calls, dropped };
}

/** The template of one codex-format trajectory of the run: parsed, cut after the ground truth's step. */
export function templateForEntry(entry: FixtureEntry, cliVersion: string): CodexSessionTemplate {
  if (entry.agent !== 'codex') throw new SessionBridgeError(`trajectory ${entry.bundlePath} is ${entry.agent}-format; codex resume reads codex-format prefixes only`);
  const history = parseTrajectory('codex', readFileSync(entry.path));
  const prefix = cutAfterStep(history, entry.task.prefixTurns);
  return codexSessionTemplate(prefix.messages, { recorded_version: history.source.recorded_version, modelled_version: history.source.modelled_version, session_id: history.source.session_id, after_step: prefix.afterStep }, cliVersion);
}

/**
 * The shell output inside a 0.169.0 unified-exec envelope (what the CLI sends back to the model as
 * the tool result); null when the text is not an envelope.
 */
export function unwrapExecOutput(text: string): { output: string; exitCode: number | null } | null {
  const match = /^(?:Chunk ID: [^\n]*\n)?Wall time: [^\n]*\n(?:Process exited with code (-?\d+)\n)?(?:Process running with session ID [^\n]*\n)?(?:Original token count: [^\n]*\n)?Output:\n/.exec(text);
  if (!match) return null;
  return { output: text.slice(match[0].length), exitCode: match[1] === undefined ? null : Number(match[1]) };
}
