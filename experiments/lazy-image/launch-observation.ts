/**
 * Turns one launched shell into the lazy-image timings and marker checks. Times are measured from
 * `t0`: for a cold launch the moment before the client's first process was spawned (httpfs2 or
 * `podman pull`), for a warm launch the shell's own spawn, so cold includes making the image
 * available to the client and warm does not need to.
 */
import type { ExitInfo, OutputLine, RunningTrial, TimingPath } from '../../harness/contracts/executor.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';

export const LAZY_READY_MARKER = 'LAZY_READY';
export const RESULT_MARKER = 'REFERENCE_RESULT';
/** The task: print ready, then one result line, then exit (the shell-ready task of the issue). */
export const LAZY_TASK_ARGV = ['sh', '-c', `echo ${LAZY_READY_MARKER}; echo ${RESULT_MARKER} '{"task":"lazy-shell"}'`];

export interface LaunchObservation {
  exit: ExitInfo;
  lines: readonly OutputLine[];
  readyMs: number | null;
  resultMs: number | null;
  completionMs: number;
  readyCount: number;
  resultCount: number;
  /** How the shell was launched and stamped (launcher or Node path, the launcher's floor). */
  timing?: TimingPath;
}

const msSince = (t0: bigint, t: bigint) => Number(t - t0) / 1e6;

export async function observeLaunch(running: RunningTrial, t0: bigint): Promise<LaunchObservation> {
  const exit = await running.exit;
  const stdout = running.lines.filter((line) => line.stream === 'stdout');
  const ready = stdout.filter((line) => line.text.trim() === LAZY_READY_MARKER);
  const result = stdout.filter((line) => line.text.startsWith(`${RESULT_MARKER} `));
  return {
    exit,
    lines: running.lines,
    readyMs: ready[0] ? msSince(t0, ready[0].tNs) : null,
    resultMs: result[0] ? msSince(t0, result[0].tNs) : null,
    completionMs: msSince(t0, exit.tExitNs),
    readyCount: ready.length,
    resultCount: result.length,
    timing: running.timing ?? { path: 'node' },
  };
}

/** Podman reports its own errors as 125 (podman), 126 (cannot invoke), 127 (not found). */
const PODMAN_OWN_EXIT = new Set([125, 126, 127]);

/** Why a launch did not complete normally, or null when it exited 0. */
export function launchFailure(observation: LaunchObservation, viaPodman: boolean): { category: FailureCategory; reason: string } | null {
  const { exit } = observation;
  if (exit.timedOut) return { category: 'timeout', reason: 'launch timed out' };
  if (exit.infraFailure) return exit.infraFailure;
  if (exit.exitCode === 0) return null;
  const tail = observation.lines.filter((line) => line.stream === 'stderr').slice(-3).map((line) => line.text).join(' | ');
  const own = exit.exitCode !== null && viaPodman && PODMAN_OWN_EXIT.has(exit.exitCode);
  // bwrap and podman failing to set the sandbox up are infrastructure, the task's own exit is not.
  const setup = own || (!viaPodman && /^bwrap: /m.test(tail));
  return { category: setup ? 'setup_failed' : 'task_failed', reason: `exit ${exit.exitCode ?? exit.signal}: ${tail}` };
}
