/**
 * Which top-level entries a file-count series grew in (pure): /tmp, the state dir and the scratch
 * roots are shared with other engineers' work, so a growing count is only a finding once it names
 * the directory that grew — a sandbench one (ctrd-checkpoint*, sandbench-*, docker/) or someone else's.
 */
import type { HostSnapshot } from './snapshot.ts';

export interface EntryGrowth {
  entry: string;
  before: number;
  after: number;
  growth: number;
}

/** The tree series and where their per-entry counts sit in a snapshot. */
export const TREE_SERIES = {
  'tmp.files': (s: HostSnapshot) => s.tmp.byEntry,
  'state.files': (s: HostSnapshot) => s.state.byEntry,
  'scratch.files': (s: HostSnapshot) => s.scratch.byEntry,
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
  if (growth.length === 0) return [`${series}: no entry grew`];
  return [`${series}, entries that grew most (files before → after):`, ...growth.map((g) => `  ${g.entry}: ${g.before} → ${g.after} (+${g.growth})`)];
}
