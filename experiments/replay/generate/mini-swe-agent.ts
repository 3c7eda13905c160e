/**
 * mini-swe-agent 2.4.6 trajectory JSON (`trajectory_format: "mini-swe-agent-1.1"`): one object with
 * `info` (mini_version, config, model_stats, exit_status, submission) and the full chat `messages`.
 * With the tool-calling model class an assistant message carries OpenAI-style `tool_calls` plus the
 * parsed `extra.actions[{command, tool_call_id}]`; each observation is a `tool` message whose
 * `extra.returncode` holds the exit status.
 */
import { AGENT_FORMATS } from '../agents.ts';
import { hexId, msAt, type FixtureTask } from '../fixture-task.ts';

export function generateMiniSweAgent(task: FixtureTask): string {
  const { seed, index } = task;
  let step = 0;
  const timestamp = () => msAt(task, step++) / 1000;
  const messages: Record<string, unknown>[] = [
    { role: 'system', content: 'You are a helpful assistant that can interact with a computer shell.', extra: { timestamp: timestamp() } },
    { role: 'user', content: task.userText, extra: { timestamp: timestamp() } },
  ];
  task.turns.forEach((turn, k) => {
    const toolCallId = `call_${hexId(seed, index, `call-${k}`, 24)}`;
    messages.push({
      role: 'assistant',
      content: turn.text,
      tool_calls: [{ id: toolCallId, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command: turn.command }) } }],
      extra: { actions: [{ command: turn.command, tool_call_id: toolCallId }], cost: 0, timestamp: timestamp() },
    });
    messages.push({
      role: 'tool',
      tool_call_id: toolCallId,
      content: turn.observation,
      extra: { returncode: turn.exitCode, raw_output: turn.observation, timestamp: timestamp() },
    });
  });
  const trajectory = {
    info: {
      model_stats: { instance_cost: 0, api_calls: task.turns.length },
      config: {
        agent: { step_limit: 0, cost_limit: 3 },
        model: { model_name: 'openai/gpt-5-mini', model_kwargs: {} },
        environment: { cwd: '/workspace', timeout: 60, env: {} },
        agent_type: 'minisweagent.agents.default.DefaultAgent',
        model_type: 'minisweagent.models.litellm_model.LitellmModel',
        environment_type: 'minisweagent.environments.local.LocalEnvironment',
      },
      mini_version: AGENT_FORMATS['mini-swe-agent'].version,
      exit_status: 'LimitsExceeded',
      submission: '',
    },
    messages,
    trajectory_format: 'mini-swe-agent-1.1',
  };
  return `${JSON.stringify(trajectory, null, 2)}\n`;
}
