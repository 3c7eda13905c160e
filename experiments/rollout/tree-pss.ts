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
 * Reused PSS readings. smaps_rollup walks a process's page tables (~2 ms of kernel CPU per 100 MiB
 * resident here), statm is O(1): a process's PSS is re-read only when its resident size moved by
 * at least `rssDeltaPages` (256 = 1 MiB of 4 KiB pages) or the reading is older than `maxAgeMs` (sharing that changes without a
 * resident change, e.g. a sibling mapping the same pages, shows at that next re-read).
 */
export class PssCache {
  private readonly entries = new Map<number, { rssPages: number; pssKiB: number; atMs: number }>();
  reads = 0;
  reuses = 0;
  constructor(
    readonly rssDeltaPages = 256,
    readonly maxAgeMs = 2000,
  ) {}

  /** PSS (KiB) of a live process; throws when it is gone. */
  pssOf(pid: number, nowMs: number): number {
    const rssPages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    const cached = this.entries.get(pid);
    if (cached && Math.abs(rssPages - cached.rssPages) < this.rssDeltaPages && nowMs - cached.atMs < this.maxAgeMs) {
      this.reuses += 1;
      return cached.pssKiB;
    }
    const pssKiB = parseSmapsRollup(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')).Pss;
    this.reads += 1;
    this.entries.set(pid, { rssPages, pssKiB, atMs: nowMs });
    return pssKiB;
  }
}

/**
 * Σ PSS (KiB), member count and members of the trees rooted at `roots`; vanished processes are
 * skipped, and pids in `exclude` (already counted elsewhere) are neither counted nor descended into.
 * With a `cache`, unchanged processes reuse their last reading (PssCache).
 */
export function treePssKiB(roots: readonly number[], exclude: ReadonlySet<number> = new Set(), cache: PssCache | null = null): { pssKiB: number; processes: number; pids: number[] } {
  const seen = new Set<number>(exclude);
  const stack = [...roots];
  const pids: number[] = [];
  let pssKiB = 0;
  let processes = 0;
  const nowMs = performance.now();
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    try {
      pssKiB += cache ? cache.pssOf(pid, nowMs) : parseSmapsRollup(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')).Pss;
      processes += 1;
      pids.push(pid);
    } catch {
      continue;
    }
    stack.push(...childrenOf(pid));
  }
  return { pssKiB, processes, pids };
}
