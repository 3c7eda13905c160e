/**
 * The shell tool is taken from the request's own tool list (codex `exec_command`, claude `Bash`,
 * pi/opencode/mini `bash`) and its call arguments are built from that tool's JSON schema, so one
 * script drives every CLI: `cmd` vs `command`, argv array vs string, other required properties filled.
 */
import type { ToolSpec } from './request-view.ts';

export interface ShellCall {
  toolName: string;
  /** JSON-encoded arguments, exactly as sent on the wire. */
  arguments: string;
}

/** The request's tools cannot carry the scripted shell command; `message` says which tools it had. */
export class ToolMismatchError extends Error {}

type Schema = Record<string, unknown>;
export const isObject = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

const COMMAND_PROPERTIES = ['cmd', 'command', 'commands', 'script'];

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((entry) => entry !== 'null') as string | undefined;
  return undefined;
}

/** A placeholder for a required property the script does not set: the schema's own default first. */
export function fillValue(name: string, schema: Schema): unknown {
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (typeOf(schema)) {
    case 'string':
      return name === 'description' ? 'sandbench scripted command' : 'sandbench';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

export function pickShellTool(tools: ToolSpec[], preference: string[]): ToolSpec | undefined {
  for (const name of preference) {
    const tool = tools.find((candidate) => candidate.name === name);
    if (tool) return tool;
  }
  return undefined;
}

/** Build the shell call for `command` against the request's tool list, or throw ToolMismatchError naming what was there. */
export function buildShellCall(tools: ToolSpec[], preference: string[], command: string, extra: Record<string, unknown> = {}): ShellCall {
  const tool = pickShellTool(tools, preference);
  if (!tool) {
    const offered = tools.map((entry) => entry.name).join(', ') || '(none)';
    throw new ToolMismatchError(`the request offers no shell tool named ${preference.join(' / ')} (its tools: ${offered}); set the script's shell_tools to one of its tool names`);
  }
  const properties = isObject(tool.schema.properties) ? tool.schema.properties : {};
  const required = Array.isArray(tool.schema.required) ? tool.schema.required.filter((entry): entry is string => typeof entry === 'string') : [];
  const commandProperty = COMMAND_PROPERTIES.find((name) => name in properties);
  if (!commandProperty) {
    throw new ToolMismatchError(`tool "${tool.name}" has no command property (${COMMAND_PROPERTIES.join(' / ')}) in its schema (properties: ${Object.keys(properties).join(', ') || '(none)'})`);
  }
  const commandSchema = isObject(properties[commandProperty]) ? (properties[commandProperty] as Schema) : {};
  const args: Record<string, unknown> = {};
  for (const name of required) {
    if (name === commandProperty) continue;
    const schema = properties[name];
    args[name] = fillValue(name, isObject(schema) ? schema : {});
  }
  // argv form only when the schema asks for it (e.g. an older codex `shell` tool: ["bash","-lc",…])
  args[commandProperty] = typeOf(commandSchema) === 'array' ? ['bash', '-lc', command] : command;
  Object.assign(args, extra);
  return { toolName: tool.name, arguments: JSON.stringify(args) };
}
