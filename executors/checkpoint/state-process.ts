/** Launch one state-program process (host side of its stdio) and wrap it as a channel. */
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import type { LaunchControls } from '../launch/launch-controls.ts';
import { spawnTrial } from '../spawn-trial.ts';
import { lineChannel } from './line-channel.ts';
import type { StateChannel } from './mechanism.ts';

export interface StateProcess {
  running: RunningTrial;
  channel: StateChannel;
}

/** In every process a mechanism starts, so `sandbench clean` finds it after a kill -9 (harness/clean RUN_ID_ENV). */
export const RUN_ID_ENV = 'SANDBENCH_RUN_ID';

export function spawnStateProcess(options: { runId: string; argv: string[]; env: Record<string, string>; cwd?: string; clearEnv?: boolean; controls?: LaunchControls; timeoutMs: number; prefix: string; describe: string }): StateProcess {
  const env = { ...options.env, [RUN_ID_ENV]: options.runId };
  const running = spawnTrial({ argv: options.argv, env, clearEnv: options.clearEnv, cwd: options.cwd, stdin: 'pipe', timeoutMs: options.timeoutMs, ...(options.controls ? { controls: options.controls } : {}) });
  return { running, channel: lineChannel(running, options.prefix, options.describe) };
}

/** Close stdin (the program exits at end of input) and wait; kill if it lingers. */
export async function stopStateProcess(process: StateProcess, graceMs = 5_000): Promise<void> {
  await process.channel.close();
  const timer = setTimeout(() => void process.running.kill('did not exit at end of input'), graceMs);
  await process.running.exit;
  clearTimeout(timer);
}
