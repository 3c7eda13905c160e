/**
 * Calls of a tool named in the script, and OpenHands' `finish`. OpenHands (openhands-sdk 1.34.0)
 * offers `terminal`, `file_editor`, `think` and `finish`, and ends its loop on a `finish` call
 * (field-integrations.md §2, 2026-12-02), as mini-swe-agent ends on its submit command: so a
 * script's final text turn becomes `finish {message: <text>}` whenever the request offers `finish`,
 * and a `call` turn names any other tool (`file_editor`, `think`) with its arguments. Required
 * properties the script does not set are filled from the tool's schema, as for the shell tool.
 */
import type { ToolSpec } from './request-view.ts';
import { fillValue, isObject, ToolMismatchError, type ShellCall } from './shell-tool.ts';

/** The tool whose call ends an OpenHands conversation (`FinishTool`, required property `message`). */
export const FINISH_TOOL = 'finish';

/** The call of the request's tool `name` with `args` (schema-filled where required), or ToolMismatchError naming what was offered. */
export function buildNamedCall(tools: ToolSpec[], name: string, args: Record<string, unknown>): ShellCall {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) {
    const offered = tools.map((entry) => entry.name).join(', ') || '(none)';
    throw new ToolMismatchError(`the request offers no tool named ${name} (its tools: ${offered})`);
  }
  const properties = isObject(tool.schema.properties) ? tool.schema.properties : {};
  const required = Array.isArray(tool.schema.required) ? tool.schema.required.filter((entry): entry is string => typeof entry === 'string') : [];
  const filled: Record<string, unknown> = {};
  for (const property of required) {
    if (property in args) continue;
    const schema = properties[property];
    filled[property] = fillValue(property, isObject(schema) ? schema : {});
  }
  return { toolName: tool.name, arguments: JSON.stringify({ ...filled, ...args }) };
}

/** The final text as a `finish` call when the request offers one; null otherwise (the text is sent as text). */
export function finishCall(tools: ToolSpec[], text: string): ShellCall | null {
  return tools.some((tool) => tool.name === FINISH_TOOL) ? buildNamedCall(tools, FINISH_TOOL, { message: text }) : null;
}
