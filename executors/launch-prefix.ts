import type { TrialContext } from '../harness/contracts/executor.ts';

/**
 * argv prefix that applies a trial's controls to a directly spawned tree: first enter the shared
 * budget (so the whole tree, including taskset, is charged to it), then pin CPUs with taskset so
 * every descendant inherits the affinity.
 */
export function controlsPrefix(trial: Pick<TrialContext, 'budget' | 'controls'>): string[] {
  const prefix: string[] = [];
  if (trial.budget) prefix.push(...trial.budget.enterArgv);
  if (trial.controls.cpus) prefix.push('taskset', '-c', trial.controls.cpus);
  return prefix;
}

/** The PATH every sandbox sees, so host and sandboxes resolve the same tool names. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
