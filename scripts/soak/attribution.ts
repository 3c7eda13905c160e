/**
 * Which parts a machine-wide count grew in (pure): /tmp, the state dir, the scratch roots and the
 * process table are shared with other engineers' work, so a growing count is only a finding once it
 * names what grew — a sandbench directory (ctrd-checkpoint*, sandbench-*, docker/) or process, or
 * someone else's.
 */
import type { HostSnapshot } from './snapshot.ts';

export interface EntryGrowth {
  entry: string;
  before: number;
  after: number;
  growth: number;
}

function countByName(names: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of names) counts[name] = (counts[name] ?? 0) + 1;
  return counts;
}

/** The attributed series and their parts in a snapshot: top-level entries (files below each), or processes by name. */
export const TREE_SERIES = {
  'tmp.files': (s: HostSnapshot) => s.tmp.byEntry,
  'state.files': (s: HostSnapshot) => s.state.byEntry,
  'scratch.files': (s: HostSnapshot) => s.scratch.byEntry,
  'processes.all': (s: HostSnapshot) => countByName(s.procs.map((p) => p.comm)),
} as const satisfies Record<string, (s: HostSnapshot) => Record<string, number>>;

export type TreeSeries = keyof typeof TREE_SERIES;

/** The `k` entries that grew most from `before` to `after` (an entry absent on one side counts 0). */
export function topGrowth(before: Record<string, number>, after: Record<string, number>, k = 5): EntryGrowth[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .map((entry) => ({ entry, before: before[entry] ?? 0, after: after[entry] ?? 0, growth: (after[entry] ?? 0) - (before[entry] ?? 0) }))
    .filter((g) => g.growth > 0)
    .sort((a, b) => b.growth - a.growth || a.entry.localeCompare(b.entry))
    .slice(0, k);
}

export function growthLines(series: string, growth: readonly EntryGrowth[]): string[] {
  if (growth.length === 0) return [`${series}: no part grew`];
  return [`${series}, parts that grew most (count before → after):`, ...growth.map((g) => `  ${g.entry}: ${g.before} → ${g.after} (+${g.growth})`)];
}
