/**
 * The run's scratch roots: `<fixture root>/sandbench-<run>` (harness/state-dir.ts runScratchDir) and
 * the in-memory `<memory root>/sandbench-<run>` (memory-scratch.ts). Every kind keeps its per-run
 * and per-attempt files below one of them, so the run removes both whole, whatever a kind made.
 *
 * Why the run owns them and not the cleanup registry: a signal releases the registry while the trial
 * in flight is still stopping, and that trial's workers (an attempt extracting its candidate, a
 * model service binding its socket) re-create directories below the roots after the registry's
 * entry was already consumed — a Ctrl-C left both roots behind. Removing them after the run's
 * teardown, when nothing can write to them any more, leaves nothing on either path.
 */
import { rmSync } from 'node:fs';
import { memoryScratchDir } from './memory-scratch.ts';
import { runScratchDir } from '../state-dir.ts';

/** Both scratch roots of a run (the in-memory one only where the host has a writable tmpfs). */
export function runScratchRoots(stateDirectory: string, runId: string): string[] {
  const memory = memoryScratchDir(runId);
  return [runScratchDir(stateDirectory, runId), ...(memory ? [memory] : [])];
}

/** Remove the roots whole; never throws, returns one message per root that could not be removed. */
export function removeRunScratch(roots: readonly string[]): string[] {
  const failures: string[] = [];
  for (const root of roots) {
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (error) {
      failures.push(`${root}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return failures;
}
