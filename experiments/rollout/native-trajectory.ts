/**
 * One attempt's native trajectory: where the arm's agent leaves it in the collected workspace (the
 * built-in agent in .sandbench-rollout/trajectory.json; an agent-kind CLI's own session file, which
 * run-agent.sh copies into .sandbench-rollout/native/ before the CLI's HOME goes with the sandbox —
 * the workspace is the channel every backend already returns the candidate through), and the check
 * that it is one: it must parse with sandbench's own replay parser for its format. A missing or
 * unparseable trajectory is a recording problem (the caller makes it `recording_failed` when the
 * rollout itself completed), never a task failure.
 */
import type { CandidateFiles } from '../../harness/contracts/executor.ts';
import { NATIVE_TRAJECTORIES } from '../agent/agents.ts';
import type { ReplayAgent } from '../replay/agents.ts';
import { PARSERS } from '../replay/parse/index.ts';
import type { RolloutArm } from './rollout-arms.ts';
import { ROLLOUT_META_DIR } from './task-contract.ts';

export const BUILTIN_TRAJECTORY_FILE = `${ROLLOUT_META_DIR}/trajectory.json`;
/** Where run-agent.sh copies a CLI's trajectory (SANDBENCH_AGENT_TRAJECTORY_DIR, set by run-rollout-agent.sh). */
export const NATIVE_TRAJECTORY_DIR = `${ROLLOUT_META_DIR}/native`;
/** run-agent.sh writes why it found no single session file here. */
export const NATIVE_COLLECT_ERROR = `${NATIVE_TRAJECTORY_DIR}/collect-error.txt`;

export interface TrajectorySource {
  format: ReplayAgent;
  /** Workspace-relative path in the collected files. */
  path: string;
  /** Where the agent itself writes it (for the record). */
  origin: string;
  recorderWritesUser: boolean;
}

export function trajectorySource(arm: RolloutArm): TrajectorySource {
  if (arm.cli === null) return { format: 'mini-swe-agent', path: BUILTIN_TRAJECTORY_FILE, origin: 'built-in agent --trajectory', recorderWritesUser: false };
  const native = NATIVE_TRAJECTORIES[arm.cli.name];
  return { format: native.format, path: `${NATIVE_TRAJECTORY_DIR}/${native.file}`, origin: native.source, recorderWritesUser: native.recorderWritesUser ?? false };
}

export interface CheckedTrajectory {
  /** The bytes to store (for a stream that does not echo the prompt: the recorder's user event first). */
  content: Buffer | null;
  format: ReplayAgent;
  origin: string;
  /** Canonical messages the parser read; null when it did not parse. */
  messages: number | null;
  /** Why this is not a usable trajectory (absent, unparseable); null when it parsed. */
  problem: string | null;
}

/**
 * The `user` event a recorder of `opencode run --format json` writes first (the run does not echo
 * the prompt): the shape the replay parser and generator model (experiments/replay/generate/opencode.ts).
 */
export function withRecorderUserEvent(stream: string, prompt: string): string {
  let sessionID: string | null = null;
  let timestamp: number | null = null;
  const first = stream.split('\n').find((line) => line.trim() !== '');
  try {
    const event = first ? (JSON.parse(first) as { sessionID?: unknown; timestamp?: unknown }) : {};
    sessionID = typeof event.sessionID === 'string' ? event.sessionID : null;
    timestamp = typeof event.timestamp === 'number' ? event.timestamp : null;
  } catch {
    // an unparseable stream stays unparseable: the parser names the line
  }
  const user = {
    type: 'user',
    ...(timestamp !== null ? { timestamp } : {}),
    ...(sessionID !== null ? { sessionID } : {}),
    message: { role: 'user', ...(sessionID !== null ? { sessionID } : {}) },
    parts: [{ type: 'text', text: prompt }],
    recorder: 'sandbench rollout',
  };
  return `${JSON.stringify(user)}\n${stream}`;
}

/** Parse `text` as `format`; the parser's own message on failure. */
export function parseTrajectory(format: ReplayAgent, text: string): { messages: number } | { problem: string } {
  try {
    return { messages: PARSERS[format](text).messages.length };
  } catch (error) {
    return { problem: `the ${format} trajectory does not parse: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export async function readTrajectory(collected: CandidateFiles, source: TrajectorySource, prompt: string): Promise<CheckedTrajectory> {
  const base = { format: source.format, origin: source.origin };
  const raw = await collected.read(source.path).catch(() => null);
  if (raw === null) {
    const why = await collected.read(NATIVE_COLLECT_ERROR).catch(() => null);
    const reason = why ? `: ${why.toString('utf8').trim().slice(0, 300)}` : '';
    return { ...base, content: null, messages: null, problem: `no native trajectory at ${source.path} (the agent writes ${source.origin})${reason}` };
  }
  const text = source.recorderWritesUser ? withRecorderUserEvent(raw.toString('utf8'), prompt) : raw.toString('utf8');
  const content = source.recorderWritesUser ? Buffer.from(text, 'utf8') : raw;
  const parsed = parseTrajectory(source.format, text);
  return 'problem' in parsed ? { ...base, content, messages: null, problem: parsed.problem } : { ...base, content, messages: parsed.messages, problem: null };
}
