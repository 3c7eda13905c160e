/**
 * A rollout attempt's native trajectory as ATIF, Harbor's Agent Trajectory Interchange Format
 * (harbor 0.25.0, harbor/models/trajectories/: ATIF-v1.8), written where a Harbor trial keeps its
 * agent's trajectory: `<bundle>/harbor-trials/<trial_id>/agent/trajectory.json`, beside result.json.
 *
 * The native file (the built-in agent's, or an agent CLI's own session file) is read through
 * sandbench's replay parser for its format into the canonical history
 * (experiments/replay/canonical-history.ts), so every format that parses converts the same way:
 *   system / user message   a `system` / `user` step holding its text
 *   assistant message       an `agent` step: its text, each call a tool_call (a shell call's
 *                           arguments are `{command}`, any other call's its native arguments)
 *   tool message            an observation result on the agent step whose call it answers
 *                           (`source_call_id`), with the exit code and error flag in `extra`;
 *                           one that answers no call of that step keeps `source_call_id: null`
 * Steps are numbered from 1 (ATIF requires it). The canonical history has no timestamps or token
 * counts, so steps carry none (both optional in ATIF); `extra` names the source format and file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ReplayAgent } from '../replay/agents.ts';
import type { AssistantMessage, CanonicalHistory, ToolCall, ToolMessage } from '../replay/canonical-history.ts';
import { PARSERS } from '../replay/parse/index.ts';
import { readObject } from './candidate-store.ts';

export const ATIF_SCHEMA_VERSION = 'ATIF-v1.8';
export const ATIF_FILE = 'agent/trajectory.json';

interface AtifObservationResult {
  source_call_id: string | null;
  content: string;
  extra?: { exit_code: number | null; is_error: boolean | null };
}

interface AtifStep {
  step_id: number;
  source: 'system' | 'user' | 'agent';
  message: string;
  tool_calls?: { tool_call_id: string; function_name: string; arguments: Record<string, unknown> }[];
  observation?: { results: AtifObservationResult[] };
}

export interface AtifTrajectory {
  schema_version: typeof ATIF_SCHEMA_VERSION;
  session_id?: string;
  agent: { name: string; version: string; extra: Record<string, unknown> };
  steps: AtifStep[];
  final_metrics: { total_steps: number };
  extra: Record<string, unknown>;
}

export interface AtifSource {
  agentName: string;
  agentVersion: string;
  /** Where the native file came from (for `extra`), e.g. "built-in agent --trajectory". */
  origin: string;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function toolCall(call: ToolCall): NonNullable<AtifStep['tool_calls']>[number] {
  const args = call.kind === 'shell' ? { command: call.command } : isPlainObject(call.arguments) ? call.arguments : { value: call.arguments };
  return { tool_call_id: call.id, function_name: call.native_name, arguments: args };
}

function agentStep(message: AssistantMessage, stepId: number): AtifStep {
  return { step_id: stepId, source: 'agent', message: message.text ?? '', ...(message.tool_calls.length > 0 ? { tool_calls: message.tool_calls.map(toolCall) } : {}) };
}

function observe(step: AtifStep, message: ToolMessage): void {
  const answers = step.tool_calls?.some((call) => call.tool_call_id === message.call_id) ?? false;
  const result = { source_call_id: answers ? message.call_id : null, content: message.output, extra: { exit_code: message.exit_code, is_error: message.is_error } };
  step.observation = { results: [...(step.observation?.results ?? []), result] };
}

/** The canonical history as an ATIF trajectory (PURE). */
export function atifFromHistory(history: CanonicalHistory, source: AtifSource): AtifTrajectory {
  const steps: AtifStep[] = [];
  for (const message of history.messages) {
    const stepId = steps.length + 1;
    if (message.role === 'assistant') steps.push(agentStep(message, stepId));
    else if (message.role === 'tool') {
      const last = steps.at(-1);
      // A tool output before any agent step has no call to hang on: kept as a system step, not dropped.
      if (last?.source === 'agent') observe(last, message);
      else steps.push({ step_id: stepId, source: 'system', message: message.output });
    } else steps.push({ step_id: stepId, source: message.role, message: message.text });
  }
  return {
    schema_version: ATIF_SCHEMA_VERSION,
    ...(history.source.session_id ? { session_id: history.source.session_id } : {}),
    agent: { name: source.agentName, version: source.agentVersion, extra: { native_format: history.source.agent, recorded_version: history.source.recorded_version } },
    steps,
    final_metrics: { total_steps: steps.length },
    extra: { converted_by: 'sandbench experiments/rollout/harbor-atif.ts', canonical_schema: history.schema, native_origin: source.origin },
  };
}

/** What a rollout record keeps of its native trajectory (rollout-attempt.ts). */
export interface StoredTrajectory {
  sha256: string;
  format: ReplayAgent;
  origin: string;
  parsed: boolean;
}

/**
 * Writes `<resultDir>/agent/trajectory.json` from an attempt's stored native trajectory. Returns why
 * it wrote none (no trajectory, one that did not parse, no messages), or null when it wrote one.
 */
export function writeAtif(bundleDir: string, resultDir: string, stored: StoredTrajectory | null, source: Omit<AtifSource, 'origin'>): string | null {
  if (!stored) return 'the attempt kept no native trajectory';
  if (!stored.parsed) return `its ${stored.format} trajectory did not parse`;
  const content = readObject(bundleDir, stored.sha256);
  if (!content) return `its trajectory object ${stored.sha256} is not in the bundle's store`;
  const history = PARSERS[stored.format](content.toString('utf8'));
  if (history.messages.length === 0) return 'its trajectory holds no messages (ATIF needs at least one step)';
  const target = join(resultDir, ATIF_FILE);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, `${JSON.stringify(atifFromHistory(history, { ...source, origin: stored.origin }), null, 2)}\n`);
  return null;
}
