/**
 * SWE-agent 1.1.0 `.traj` JSON: `trajectory` (one step per action: `action`, `observation`,
 * `response`, `thought`, `execution_time`, `state`, `query`), `history` (the chat the model saw,
 * with `message_type` and function-calling `tool_calls` / `tool_call_ids`), `info`
 * (`swe_agent_version`, `exit_status`, `model_stats`), `replay_config` (the run config as a JSON
 * string, holding the problem statement) and `environment`. SWE-agent's observation has no exit code.
 */
import { AGENT_FORMATS } from '../agents.ts';
import { hexId, msAt, type FixtureTask } from '../fixture-task.ts';

export function generateSweAgent(task: FixtureTask): string {
  const { seed, index } = task;
  const system = { role: 'system', content: 'You are a helpful assistant that can interact with a computer to solve tasks.', agent: 'main', message_type: 'system_prompt' };
  const user = { role: 'user', content: [{ type: 'text', text: task.userText }], agent: 'main', message_type: 'observation' };
  const history: Record<string, unknown>[] = [system, user];
  const trajectory: Record<string, unknown>[] = [];
  task.turns.forEach((turn, k) => {
    const id = `call_${hexId(seed, index, `call-${k}`, 24)}`;
    const assistant = {
      role: 'assistant',
      content: turn.text,
      thought: turn.text,
      action: turn.command,
      agent: 'main',
      tool_calls: [{ function: { arguments: JSON.stringify({ command: turn.command }), name: 'bash' }, id, type: 'function' }],
      message_type: 'action',
      thinking_blocks: [],
    };
    const query = [...history];
    history.push(assistant);
    history.push({ role: 'tool', content: [{ type: 'text', text: turn.observation }], agent: 'main', message_type: 'observation', tool_call_ids: [id] });
    trajectory.push({
      action: turn.command,
      observation: turn.observation,
      response: turn.text,
      thought: turn.text,
      execution_time: 0.01,
      state: { working_dir: '/workspace' },
      query,
      extra_info: {},
    });
  });
  const replayConfig = {
    env: { deployment: { type: 'local' }, repo: null, post_startup_commands: [] },
    agent: { type: 'default', model: { name: 'claude-sonnet-4-5-20250929' } },
    problem_statement: { text: task.userText, extra_fields: {}, type: 'text', id: hexId(seed, index, 'problem', 6) },
    output_dir: '/workspace/trajectories',
  };
  const traj = {
    trajectory,
    history,
    info: {
      swe_agent_hash: hexId(seed, 0, 'swe-agent-hash', 40),
      swe_agent_version: AGENT_FORMATS['swe-agent'].version,
      swe_rex_version: '1.4.0',
      swe_rex_hash: 'unavailable',
      submission: null,
      exit_status: 'exit_cost',
      model_stats: { instance_cost: 0, tokens_sent: 0, tokens_received: 0, api_calls: task.turns.length },
      created_at_ms: msAt(task, 0),
    },
    replay_config: JSON.stringify(replayConfig),
    environment: 'main',
  };
  return `${JSON.stringify(traj, null, 2)}\n`;
}
