/**
 * The agent CLIs the `agent` kind can run, with pinned versions (the ones measured in
 * data/agents/agent-clis.md, 2026-12-01) and what each needs from its sandbox. The per-CLI offline
 * configuration and command line live in run-agent.sh (the in-sandbox entry script), keyed by the
 * same names, so a name here without a branch there is caught by the agent layer tests.
 */
import { UserError } from '../../harness/errors.ts';
import type { ReplayAgent } from '../replay/agents.ts';

/**
 * Where a CLI's native trajectory is, in the format sandbench's replay parser reads (checked by
 * running each layer, 2026-12-01): run-agent.sh copies it to `<SANDBENCH_AGENT_TRAJECTORY_DIR>/<file>`.
 */
export interface NativeTrajectory {
  format: ReplayAgent;
  file: string;
  /** Where the CLI itself writes it (documentation and the record). */
  source: string;
  /** The stream does not echo the prompt: the recorder writes it first as a `user` event (the modelled shape). */
  recorderWritesUser?: boolean;
}

export interface AgentCli {
  name: AgentName;
  /** Registry version the layer is built from. */
  version: string;
  /** Wire protocol it speaks to the model service (documentation and records). */
  protocol: 'openai-responses' | 'anthropic-messages' | 'openai-chat';
  /** Why a backend can fail it for reasons outside the sandbox's isolation (recorded in facts). */
  needs: string;
  /**
   * Where the CLI leaves its native trajectory in the workspace when the agent kind runs it (the
   * agent kind then keeps it in the bundle, agent-trajectories/); absent: the agent kind runs it ephemeral.
   */
  agentKindTrajectory?: string;
}

export const AGENT_NAMES = ['codex', 'claude', 'opencode', 'pi', 'mini-swe-agent', 'openhands'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

export const AGENTS: Record<AgentName, AgentCli> = {
  codex: { name: 'codex', version: '0.169.0', protocol: 'openai-responses', needs: 'any sh (static musl binary)' },
  claude: { name: 'claude', version: '2.1.332', protocol: 'anthropic-messages', needs: 'glibc + bash, a CPU with AVX2 (Bun build)' },
  opencode: { name: 'opencode', version: '1.18.33', protocol: 'openai-chat', needs: 'glibc + bash, loopback up (it serves itself on lo)' },
  pi: { name: 'pi', version: '0.73.1', protocol: 'openai-chat', needs: 'glibc + libstdc++ (the layer brings Node 22.23.5)' },
  // Non-streaming Chat Completions through litellm 1.110.2 (pinned in the build script); ends only on its submit tool call.
  'mini-swe-agent': { name: 'mini-swe-agent', version: '2.4.6', protocol: 'openai-chat', needs: 'the image python3.11 (the layer is a venv built for it)' },
  // The SDK (openhands-sdk/-tools) in-process, non-streaming Chat Completions through litellm; ends only on its finish tool call (docs/openhands.md).
  openhands: {
    name: 'openhands',
    version: '1.34.0',
    protocol: 'openai-chat',
    needs: "glibc and bookworm's libssl3/libffi8/libsqlite3 (the layer brings CPython 3.12.1); ~12 s of CPU-bound import before the first request",
    agentKindTrajectory: '.sandbench-agent/openhands-events.json',
  },
};

/** Each CLI's native trajectory (the rollout kind collects it; the agent kind runs them ephemeral). */
export const NATIVE_TRAJECTORIES: Record<AgentName, NativeTrajectory> = {
  codex: { format: 'codex', file: 'codex-rollout.jsonl', source: '$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl (exec without --ephemeral)' },
  claude: { format: 'claude-code', file: 'claude-session.jsonl', source: '~/.claude/projects/<cwd slug>/<session>.jsonl (without --no-session-persistence)' },
  // its own store is $XDG_DATA_HOME/opencode/opencode.db (SQLite, ~1 MB of WAL per run); the replay format is the run's event stream
  opencode: { format: 'opencode', file: 'opencode-events.jsonl', source: '`opencode run --format json` stdout', recorderWritesUser: true },
  // ~/.pi/agent/sessions/*.jsonl (session format v3) is not the replay format; the json-mode event stream is
  pi: { format: 'pi-agent', file: 'pi-events.jsonl', source: '`pi --mode json` stdout' },
  'mini-swe-agent': { format: 'mini-swe-agent', file: 'mini-trajectory.json', source: 'the -o trajectory JSON' },
  // SDK 1.34.0 (V1) event objects joined into one array by openhands_runner.py (parsed by experiments/replay/parse/openhands-sdk.ts).
  openhands: { format: 'openhands', file: 'openhands-events.json', source: 'persistence_dir/<conversation>/events/event-*.json, joined by openhands_runner.py' },
};

export function agentByName(name: string, where: string): AgentCli {
  if ((AGENT_NAMES as readonly string[]).includes(name)) return AGENTS[name as AgentName];
  throw new UserError(`${where}: unknown agent "${name}"; expected one of ${AGENT_NAMES.join(', ')}`);
}
