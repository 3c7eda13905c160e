/**
 * PSS of one sandbox's process tree, cheaply enough to sample every rollout while C of them run:
 * the tree is walked through /proc/<pid>/task/<tid>/children (the kernel's own child lists) instead
 * of scanning every process on the machine, and each member's smaps_rollup gives its PSS.
 * (Container engines: the launched tree is the engine client, so this is the client's share; the
 * budget's peak covers the containers.)
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

/** Σ PSS (KiB) and member count of the trees rooted at `roots`; vanished processes are skipped. */
export function treePssKiB(roots: readonly number[]): { pssKiB: number; processes: number } {
  const seen = new Set<number>();
  const stack = [...roots];
  let pssKiB = 0;
  let processes = 0;
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    try {
      pssKiB += parseSmapsRollup(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')).Pss;
      processes += 1;
    } catch {
      continue;
    }
    stack.push(...childrenOf(pid));
  }
  return { pssKiB, processes };
}
