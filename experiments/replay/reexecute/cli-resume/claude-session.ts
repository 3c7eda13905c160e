/**
 * The bridge from a claude-code-format trajectory (the generator pins Claude Code 2.1.220) to the
 * session store of the Claude Code the agent layer builds (2.1.332), through the canonical history
 * (issue 19). 2.1.220's session splits one API message into one event per content block; 2.1.332
 * resumes from one event per message, chained by uuid/parentUuid, which is what the seeder writes.
 * Tool results are slots the in-sandbox seeder (seed-claude-session.py) fills with the REPLAYED
 * output. Facts and their evidence: data/agents/claude-session-format.md.
 */
import { readFileSync } from 'node:fs';
import { CANONICAL_SCHEMA, type CanonicalMessage } from '../../canonical-history.ts';
import { cutAfterStep } from '../../cut-prefix.ts';
import { parseTrajectory } from '../../prepare-prefix.ts';
import type { FixtureEntry } from '../../replay-fixtures.ts';
import { SessionBridgeError } from './codex-session.ts';

export const CLAUDE_SESSION_TEMPLATE_SCHEMA = 'sandbench.claude-session-template/1';
export const CLAUDE_SHELL_TOOL = 'Bash';

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: { command: string } }
  /** A slot: the seeder writes the replayed output of `tool_use_id` (content) and is_error (exit ≠ 0). */
  | { type: 'tool_result'; tool_use_id: string; content: null; is_error: null };

export interface ClaudeSessionTemplate {
  schema: typeof CLAUDE_SESSION_TEMPLATE_SCHEMA;
  cli_version: string;
  bridged_from: { format: 'claude-code'; recorded_version: string | null; modelled_version: string; canonical_schema: string; session_id: string | null; after_step: number };
  /** One event each: the prompt (string content), assistant messages, user messages of tool-result slots. */
  messages: { role: 'user' | 'assistant'; content: string | Block[] }[];
  calls: string[];
  dropped: string[];
}

export function claudeSessionTemplate(messages: readonly CanonicalMessage[], meta: Omit<ClaudeSessionTemplate['bridged_from'], 'format' | 'canonical_schema'>, cliVersion: string): ClaudeSessionTemplate {
  const out: ClaudeSessionTemplate['messages'] = [];
  const calls: string[] = [];
  const dropped: string[] = [];
  for (const message of messages) {
    if (message.role === 'system') dropped.push(`system text at ${message.native_ref}`);
    else if (message.role === 'user') out.push({ role: 'user', content: message.text });
    else if (message.role === 'assistant') {
      const blocks: Block[] = message.text ? [{ type: 'text', text: message.text }] : [];
      for (const call of message.tool_calls) {
        if (call.kind !== 'shell') throw new SessionBridgeError(`call ${call.id} (${call.native_name}) at ${message.native_ref} is not a shell call; Claude Code ${cliVersion}'s ${CLAUDE_SHELL_TOOL} cannot carry it`);
        blocks.push({ type: 'tool_use', id: call.id, name: CLAUDE_SHELL_TOOL, input: { command: call.command } });
        calls.push(call.id);
      }
      if (blocks.length > 0) out.push({ role: 'assistant', content: blocks });
    } else {
      if (!calls.includes(message.call_id)) throw new SessionBridgeError(`tool result ${message.call_id} at ${message.native_ref} answers no call of the prefix`);
      const slot: Block = { type: 'tool_result', tool_use_id: message.call_id, content: null, is_error: null };
      // results of one batch go back in one user message, as the API requires
      const last = out[out.length - 1];
      if (last && last.role === 'user' && Array.isArray(last.content) && last.content.every((b) => b.type === 'tool_result')) last.content.push(slot);
      else out.push({ role: 'user', content: [slot] });
    }
  }
  return { schema: CLAUDE_SESSION_TEMPLATE_SCHEMA, cli_version: cliVersion, bridged_from: { format: 'claude-code', canonical_schema: CANONICAL_SCHEMA, ...meta }, messages: out, calls, dropped };
}

export function claudeTemplateForEntry(entry: FixtureEntry, cliVersion: string): ClaudeSessionTemplate {
  if (entry.agent !== 'claude-code') throw new SessionBridgeError(`trajectory ${entry.bundlePath} is ${entry.agent}-format; claude --resume reads claude-code-format prefixes only`);
  const history = parseTrajectory('claude-code', readFileSync(entry.path));
  const prefix = cutAfterStep(history, entry.task.prefixTurns);
  return claudeSessionTemplate(prefix.messages, { recorded_version: history.source.recorded_version, modelled_version: history.source.modelled_version, session_id: history.source.session_id, after_step: prefix.afterStep }, cliVersion);
}
