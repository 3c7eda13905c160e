/**
 * PSS of one sandbox's process tree, cheaply enough to sample every rollout while C of them run:
 * the tree is walked through /proc/<pid>/task/<tid>/children (the kernel's own child lists) instead
 * of scanning every process on the machine, and each member's smaps_rollup gives its PSS.
 * (Container engines: the launched tree is only the engine client; sandbox-pss.ts adds the
 * container's own processes.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseSmapsRollup } from '../../executors/checkpoint/pss.ts';

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      for (const word of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ')) if (word.trim()) out.push(Number(word));
    } catch {
      // the task ended between the listing and the read
    }
  }
  return out;
}

/**
 * Σ PSS (KiB), member count and members of the trees rooted at `roots`; vanished processes are
 * skipped, and pids in `exclude` (already counted elsewhere) are neither counted nor descended into.
 */
export function treePssKiB(roots: readonly number[], exclude: ReadonlySet<number> = new Set()): { pssKiB: number; processes: number; pids: number[] } {
  const seen = new Set<number>(exclude);
  const stack = [...roots];
  const pids: number[] = [];
  let pssKiB = 0;
  let processes = 0;
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    try {
      pssKiB += parseSmapsRollup(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')).Pss;
      processes += 1;
      pids.push(pid);
    } catch {
      continue;
    }
    stack.push(...childrenOf(pid));
  }
  return { pssKiB, processes, pids };
}
