/**
 * Release a barrier: the same bytes to N launched trees' stdin, as close together as possible.
 * Through the launcher the writes happen in one tight C loop, each stamped (CLOCK_MONOTONIC); the
 * Node path writes from the event loop and stamps around each write. Targets are found by the
 * trees' root PIDs, so wrapped RunningTrials (container clients, VM consoles) work too; a VM
 * console only forwards stdin once the guest said it is open, which holds once a worker is READY.
 */
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import { establishedSession } from './timing-session.ts';
import type { LaunchedProcess } from './launcher-client.ts';

export interface BarrierRelease {
  path: 'launcher' | 'node';
  /** Per target, in the order given: when its write started (host monotonic ns) and whether it succeeded. */
  writes: { tNs: bigint; ok: boolean; error?: string }[];
  /** max − min write timestamp, ms (null with no targets). */
  skewMs: number | null;
}

const skewOf = (stamps: bigint[]): number | null => {
  if (stamps.length === 0) return null;
  let min = stamps[0]!;
  let max = stamps[0]!;
  for (const stamp of stamps) {
    if (stamp < min) min = stamp;
    if (stamp > max) max = stamp;
  }
  return Number(max - min) / 1e6;
};

export async function releaseBarrier(targets: RunningTrial[], data: string): Promise<BarrierRelease> {
  const session = establishedSession();
  if (session?.path === 'launcher' && session.client.alive) {
    const launched: LaunchedProcess[] = [];
    for (const target of targets) {
      const pid = target.rootPids()[0];
      const found = pid === undefined ? undefined : session.client.byPid(pid);
      if (!found) break;
      launched.push(found);
    }
    // Every target must be the launcher's, else one path for all (mixed stamps would not compare).
    if (launched.length === targets.length && targets.length > 0) {
      const result = await session.client.barrier(launched, data);
      const writes = result.writes.map((write) => ({ tNs: write.tNs, ok: write.errno === 0, ...(write.errno ? { error: `errno ${write.errno}` } : {}) }));
      return { path: 'launcher', writes, skewMs: skewOf(writes.map((w) => w.tNs)) };
    }
  }
  const writes = targets.map((target) => {
    const tNs = process.hrtime.bigint();
    try {
      target.writeStdin(data);
      return { tNs, ok: true };
    } catch (error) {
      return { tNs, ok: false, error: (error as Error).message };
    }
  });
  return { path: 'node', writes, skewMs: skewOf(writes.map((w) => w.tNs)) };
}
