/**
 * A trial's controls (CPU affinity, the shared budget's cgroups) as the launcher applies them —
 * in the child, before exec — and as the Node fallback applies them: an argv prefix (the budget's
 * enter shell, then taskset), which costs two extra execs per launch.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BudgetPlacement, TrialContext } from '../../harness/contracts/executor.ts';
import { BUDGET_CONTROLLERS, detectCgroupLayout, separateCpuacct, type CgroupLayout } from '../../harness/controls/cgroup-layout.ts';

export interface LaunchControls {
  /** CPU list for sched_setaffinity / taskset; null = not pinned. */
  cpus: string | null;
  budget: BudgetPlacement | null;
}

export function launchControls(trial: Pick<TrialContext, 'budget' | 'controls'>): LaunchControls {
  return { cpus: trial.controls.cpus, budget: trial.budget };
}

let layout: CgroupLayout | null = null;

/**
 * The cgroup.procs files of a budget, from its placement: the same directories CgroupBudget made
 * (`<controller mount><cgroupParent>` on v1, `<mount><cgroupParent>` on v2).
 */
export function budgetProcsFiles(budget: BudgetPlacement, cgroups: CgroupLayout = (layout ??= detectCgroupLayout())): string[] {
  if (cgroups.version !== budget.cgroupVersion) throw new Error(`budget ${budget.cgroupParent} is cgroup v${budget.cgroupVersion} but this host's budget controllers are on v${cgroups.version}`);
  const dirs = cgroups.version === 1 ? BUDGET_CONTROLLERS.map((c) => join(cgroups.mounts[c], budget.cgroupParent)) : [join(cgroups.mount, budget.cgroupParent)];
  // An attempt cgroup on a host that mounts cpuacct apart (harness/controls/attempt-cgroup.ts) has a cpuacct dir too: enter it, so its CPU is counted.
  // Which hierarchy that is comes from the mount table, read once: probing every hierarchy cost 8 access calls per launch.
  const cpuacct = separateCpuacct(cgroups);
  if (cpuacct !== null && existsSync(join(cpuacct, budget.cgroupParent, 'cpuacct.usage'))) dirs.push(join(cpuacct, budget.cgroupParent));
  return [...new Set(dirs)].map((dir) => join(dir, 'cgroup.procs'));
}

/** The Node path's prefix: enter the budget first (so taskset is charged too), then pin. */
export function nodeControlsPrefix(controls: LaunchControls | undefined): string[] {
  if (!controls) return [];
  const prefix: string[] = [];
  if (controls.budget) prefix.push(...controls.budget.enterArgv);
  if (controls.cpus) prefix.push('taskset', '-c', controls.cpus);
  return prefix;
}
