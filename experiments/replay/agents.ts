/**
 * The seven agent-native trajectory formats sandbench reads, each pinned to the agent release whose
 * on-disk shape we model. The pins match the pVisor 2026-10 replay cohort (pvisor-replay 0.3.1 accepts
 * exactly these versions), so one generated file feeds both subjects.
 */
export const REPLAY_AGENTS = ['claude-code', 'codex', 'opencode', 'mini-swe-agent', 'openhands', 'pi-agent', 'swe-agent'] as const;
export type ReplayAgent = (typeof REPLAY_AGENTS)[number];

export interface AgentFormat {
  /** Agent release whose native trajectory shape is modelled. */
  version: string;
  /** What the native file is. */
  container: 'jsonl' | 'json';
  /** File extension used by the generator (swe-agent writes `.traj`). */
  extension: string;
  /** Short description for docs and `--help`. */
  description: string;
}

export const AGENT_FORMATS: Record<ReplayAgent, AgentFormat> = {
  'claude-code': { version: '2.1.220', container: 'jsonl', extension: 'jsonl', description: 'session JSONL (~/.claude/projects/*/<session>.jsonl)' },
  codex: { version: '0.149.0', container: 'jsonl', extension: 'jsonl', description: 'rollout JSONL (session_meta / response_item / event_msg)' },
  opencode: { version: '1.17.7', container: 'jsonl', extension: 'jsonl', description: '`opencode run --format json` event JSONL' },
  'mini-swe-agent': { version: '2.4.6', container: 'json', extension: 'json', description: 'trajectory JSON (trajectory_format mini-swe-agent-1.1, messages)' },
  openhands: { version: '0.53.0', container: 'json', extension: 'json', description: 'event-stream JSON array (actions and observations)' },
  'pi-agent': { version: '0.83.0', container: 'jsonl', extension: 'jsonl', description: '`pi --mode rpc` event JSONL (message_end / turn_end)' },
  'swe-agent': { version: '1.1.0', container: 'json', extension: 'traj', description: '.traj JSON (trajectory steps, history, info, replay_config)' },
};

export function isReplayAgent(value: string): value is ReplayAgent {
  return (REPLAY_AGENTS as readonly string[]).includes(value);
}
