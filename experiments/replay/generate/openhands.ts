/**
 * OpenHands 0.53.0 event stream, exported as one JSON array (the trajectory `/api/.../trajectory` and
 * `save_trajectory_path` write): integer `id`s; the user's `message` action; the agent's `run` action
 * (`args.command`, `args.thought`, `tool_call_metadata` linking the LLM tool call `execute_bash`);
 * and the `run` observation with `cause` = the action id, `content` = output and
 * `extras.metadata.exit_code`.
 */
import { hexId, isoAt, type FixtureTask } from '../fixture-task.ts';

export function generateOpenhands(task: FixtureTask): string {
  const { seed, index } = task;
  const events: Record<string, unknown>[] = [];
  const timestamp = (id: number) => isoAt(task, id).replace('Z', '');
  events.push({
    id: 0,
    timestamp: timestamp(0),
    source: 'user',
    message: task.userText,
    action: 'message',
    args: { content: task.userText, file_urls: null, image_urls: null, wait_for_response: false, security_risk: -1 },
  });
  task.turns.forEach((turn, k) => {
    const actionId = events.length;
    const toolCallId = `toolu_01${hexId(seed, index, `tool-${k}`, 22)}`;
    const toolCallMetadata = {
      function_name: 'execute_bash',
      tool_call_id: toolCallId,
      model_response: { id: `chatcmpl-${hexId(seed, index, `response-${k}`, 24)}`, object: 'chat.completion', model: 'claude-sonnet-4-5-20250929' },
      total_calls_in_response: 1,
    };
    events.push({
      id: actionId,
      timestamp: timestamp(actionId),
      source: 'agent',
      message: `Running command: ${turn.command}`,
      action: 'run',
      tool_call_metadata: toolCallMetadata,
      args: { command: turn.command, is_input: false, thought: turn.text, blocking: false, is_static: false, cwd: null, hidden: false, confirmation_state: 'confirmed', security_risk: -1 },
      timeout: 120,
    });
    const observationId = events.length;
    events.push({
      id: observationId,
      timestamp: timestamp(observationId),
      source: 'environment',
      message: `Command \`${turn.command}\` executed with exit code ${turn.exitCode}.`,
      cause: actionId,
      observation: 'run',
      tool_call_metadata: toolCallMetadata,
      content: turn.observation,
      extras: {
        command: turn.command,
        metadata: { exit_code: turn.exitCode, pid: -1, username: 'root', hostname: 'sandbox', working_dir: '/workspace', py_interpreter_path: null, prefix: '', suffix: `\n[The command completed with exit code ${turn.exitCode}.]` },
        hidden: false,
      },
      success: turn.exitCode === 0,
    });
  });
  return `${JSON.stringify(events, null, 2)}\n`;
}
