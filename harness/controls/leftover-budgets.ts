/**
 * For `sandbench clean`: budgets of runs killed with -9 stay behind as `sandbench-<runId>-*`
 * cgroups. List them (optionally for one run id) and remove them: kill what is left inside, rmdir.
 */
import { join } from 'node:path';
import { BUDGET_CONTROLLERS, detectCgroupLayout, type CgroupLayout } from './cgroup-layout.ts';
import { nodeCgroupIo, removeCgroupTree, type CgroupIo } from './cgroup-io.ts';
import { killUntilEmpty } from './proc-tree.ts';

export function leftoverBudgets(runId?: string, layout: CgroupLayout = detectCgroupLayout(), io: CgroupIo = nodeCgroupIo): string[] {
  const prefix = runId ? `sandbench-${runId}-` : 'sandbench-';
  const roots = layout.version === 1 ? [...BUDGET_CONTROLLERS.map((c) => layout.mounts[c]), ...layout.others] : [layout.mount];
  const names = new Set<string>();
  for (const root of roots) for (const name of io.subdirs(root)) if (name.startsWith(prefix)) names.add(name);
  return [...names].sort();
}

export async function removeBudget(name: string, layout: CgroupLayout = detectCgroupLayout(), io: CgroupIo = nodeCgroupIo): Promise<void> {
  if (!name.startsWith('sandbench-') || name.includes('/')) throw new Error(`refusing to remove cgroup "${name}": not a sandbench budget`);
  const roots = layout.version === 1 ? [...new Set([...BUDGET_CONTROLLERS.map((c) => layout.mounts[c]), ...layout.others])] : [layout.mount];
  const dirs = roots.map((root) => join(root, name)).filter((dir) => io.exists(dir));
  const procsOf = (dir: string): number[] => [
    ...(io.read(join(dir, 'cgroup.procs')) ?? '').split('\n').filter(Boolean).map(Number),
    ...io.subdirs(dir).flatMap((sub) => procsOf(join(dir, sub))),
  ];
  await killUntilEmpty(() => dirs.flatMap(procsOf));
  const failures: string[] = [];
  for (const dir of dirs) removeCgroupTree(io, dir, failures);
  if (failures.length > 0) throw new Error(`budget ${name} could not be removed: ${failures.join('; ')}`);
}
