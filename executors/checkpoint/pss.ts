/**
 * Memory of a sandbox's process trees from /proc/<pid>/smaps_rollup: PSS splits shared pages
 * between their sharers, so summed over K children it is what the K children really cost; the
 * Shared_/Private_ split says how much of a child is shared (page cache, KSM, CoW after fork).
 */
import { readFileSync } from 'node:fs';
import { descendants } from '../../harness/controls/proc-tree.ts';

export interface MemoryUse {
  pssKiB: number;
  sharedKiB: number;
  privateKiB: number;
  rssKiB: number;
  processes: number;
}

const FIELDS = ['Pss', 'Rss', 'Shared_Clean', 'Shared_Dirty', 'Private_Clean', 'Private_Dirty'] as const;

export function parseSmapsRollup(text: string): Record<(typeof FIELDS)[number], number> {
  const values = Object.fromEntries(FIELDS.map((field) => [field, 0])) as Record<(typeof FIELDS)[number], number>;
  for (const line of text.split('\n')) {
    const match = /^(\w+):\s+(\d+) kB$/.exec(line);
    if (match && (FIELDS as readonly string[]).includes(match[1]!)) values[match[1] as (typeof FIELDS)[number]] = Number(match[2]);
  }
  return values;
}

/** Sum over the trees rooted at `roots` (each pid counted once; vanished pids skipped). */
export function treeMemory(roots: number[]): MemoryUse {
  const pids = new Set(descendants(roots).map((proc) => proc.pid));
  const total: MemoryUse = { pssKiB: 0, sharedKiB: 0, privateKiB: 0, rssKiB: 0, processes: 0 };
  for (const pid of pids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    } catch {
      continue;
    }
    const v = parseSmapsRollup(text);
    total.pssKiB += v.Pss;
    total.rssKiB += v.Rss;
    total.sharedKiB += v.Shared_Clean + v.Shared_Dirty;
    total.privateKiB += v.Private_Clean + v.Private_Dirty;
    total.processes += 1;
  }
  return total;
}
