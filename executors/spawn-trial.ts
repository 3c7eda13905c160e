/**
 * Spawns one launched tree in its own process group and turns its output into timestamped lines.
 * Shared by every adapter that launches a process (host, staged, podman/docker clients, qemu, pvisor).
 * Two timing paths behind one shape (executors/launch/): the native launcher when the run has one
 * (stamps taken in a small C process right before vfork, at each read and at waitid), else Node's
 * spawn. Each RunningTrial says which path timed it (`timing`).
 */
import type { RunningTrial } from '../harness/contracts/executor.ts';
import { spawnWithLauncher } from './launch/launcher-spawn.ts';
import { spawnWithNode } from './launch/node-spawn.ts';
import type { SpawnOptions } from './launch/spawn-options.ts';
import { establishedSession, timingPathOf, timingSession, type TimingSession } from './launch/timing-session.ts';

export type { SpawnOptions } from './launch/spawn-options.ts';

function spawnIn(session: TimingSession | null, options: SpawnOptions): RunningTrial & { started?: Promise<void> } {
  const timing = timingPathOf(session);
  if (session?.path === 'launcher') return spawnWithLauncher(session.client, options, timing);
  return spawnWithNode(options, timing);
}

/**
 * Synchronous form, for callers that cannot await: uses the run's launcher if it is already up,
 * else the Node path. `tSpawnNs` is final by the time any line or the exit is delivered.
 */
export function spawnTrial(options: SpawnOptions): RunningTrial {
  return spawnIn(establishedSession(), options);
}

/**
 * What executors' launch() uses: starts the run's launcher if needed and resolves once the spawn
 * happened (or failed), so `tSpawnNs` is already the launcher's pre-vfork stamp.
 */
export async function startTrial(options: SpawnOptions): Promise<RunningTrial> {
  const running = spawnIn(await timingSession(), options);
  if (running.started) await running.started;
  return running;
}
