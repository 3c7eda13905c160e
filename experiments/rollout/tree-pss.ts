/**
 * PSS of one sandbox's process tree, cheaply enough to sample every rollout while C of them run:
 * the tree is walked through /proc/<pid>/task/<tid>/children (the kernel's own child lists) instead
 * of scanning every process on the machine, and each member's smaps_rollup gives its PSS.
 * (Container engines: the launched tree is only the engine client; sandbox-pss.ts adds the
 * container's own processes.)
 */
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { parseSmapsRollup } from '../../executors/checkpoint/pss.ts';

/** statm counts pages: the kernel's page size in KiB, read once from this process's first mapping. */
let pageKiB: number | null = null;
function kernelPageKiB(): number {
  if (pageKiB === null) {
    // only the first mapping's block: reading all of a large process's smaps walks all its page tables
    const fd = openSync('/proc/self/smaps', 'r');
    const head = Buffer.alloc(4096);
    let length = 0;
    try {
      length = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    const match = /^KernelPageSize:\s+(\d+) kB$/m.exec(head.toString('latin1', 0, length));
    pageKiB = match ? Number(match[1]) : 4;
  }
  return pageKiB;
}

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
 * resident here: 0.6-2 ms per read of an engine client or a qemu), statm is O(1). Between re-reads a
 * process's PSS is estimated as its last reading plus the change in its resident size since then:
 * pages faulted in or freed between readings are taken as private (heap, stacks, the files the agent
 * writes), which is what a sandbox's growth mostly is. smaps_rollup is re-read when the resident size
 * moved by at least max(`rssDeltaPages`, `rssDeltaFraction` × resident) since the last reading
 * (256 pages = 1 MiB; 5 %), or the reading is older than `maxAgeMs` — so the estimate's error is
 * bounded by the sharing that changed without a resident change (a sibling mapping or dropping the
 * same pages), for at most `maxAgeMs`. A Go engine client's resident size moves a little with every
 * garbage collection: re-reading it on each 1 MiB step was most of the sampler's cost.
 */
export class PssCache {
  private readonly entries = new Map<number, { rssPages: number; pssKiB: number; atMs: number }>();
  reads = 0;
  reuses = 0;
  constructor(
    readonly rssDeltaPages = 256,
    readonly maxAgeMs = 5000,
    readonly rssDeltaFraction = 0.05,
  ) {}

  /** PSS (KiB) of a live process; throws when it is gone. */
  pssOf(pid: number, nowMs: number): number {
    const rssPages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    const cached = this.entries.get(pid);
    if (cached && nowMs - cached.atMs < this.maxAgeMs) {
      const moved = rssPages - cached.rssPages;
      if (Math.abs(moved) < Math.max(this.rssDeltaPages, this.rssDeltaFraction * cached.rssPages)) {
        this.reuses += 1;
        return Math.max(0, cached.pssKiB + moved * kernelPageKiB());
      }
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
