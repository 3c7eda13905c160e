/**
 * A cell's memory per rollout, PURE: the P50 and max of its completed attempts' own-cgroup peaks
 * (facts.memory_method, harness/controls/memory-method.ts). Figures are pooled only when every one
 * was measured the same way over the whole sandbox; otherwise the cell gets no figure and says why,
 * so a partial figure is never mixed silently with whole-sandbox ones. Records from before issue 30
 * carry only the sampled process-tree PSS: they read as `process-tree-pss (before issue 30)`, with
 * what the walk covered.
 */
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { comparableMemoryMethods, MEMORY_METHODS, type MemoryMethod } from '../../harness/controls/memory-method.ts';
import { quantile } from '../../harness/stats/index.ts';

export const LEGACY_PSS_METHOD = 'process-tree-pss (before issue 30)';

export interface CellMemory {
  /** One method, `mixed`, or LEGACY_PSS_METHOD. */
  method: string;
  /** Completed attempts with a figure. */
  n: number;
  p50Bytes: number | null;
  maxBytes: number | null;
  /** Why there is no figure, or what it leaves out. */
  note: string | null;
}

interface AttemptMemory {
  method: string;
  bytes: number | null;
  covers: string;
}

function attemptMemory(record: TrialRecord): AttemptMemory {
  const method = record.facts.memory_method;
  if (typeof method === 'string') {
    return { method, bytes: record.metrics.memory_peak_bytes ?? null, covers: String(record.facts.memory_covers ?? '') };
  }
  const pss = record.metrics.pss_peak_kib;
  return { method: LEGACY_PSS_METHOD, bytes: pss === undefined ? null : pss * 1024, covers: `PSS sampled from ${String(record.facts.pss_scope ?? 'the launched tree')}` };
}

const isWholeSandbox = (method: string) => (MEMORY_METHODS as readonly string[]).includes(method) && comparableMemoryMethods(method as MemoryMethod, method as MemoryMethod);

export function cellMemory(completed: readonly TrialRecord[]): CellMemory {
  const attempts = completed.map(attemptMemory);
  const methods = [...new Set(attempts.map((a) => a.method))].sort();
  if (methods.length === 0) return { method: 'none', n: 0, p50Bytes: null, maxBytes: null, note: 'no completed attempt' };
  if (methods.length > 1) {
    const tally = methods.map((m) => `${m}=${attempts.filter((a) => a.method === m).length}`).join('; ');
    return { method: 'mixed', n: 0, p50Bytes: null, maxBytes: null, note: `attempts measured differently (${tally}): no pooled figure` };
  }
  const method = methods[0]!;
  const bytes = attempts.map((a) => a.bytes).filter((b): b is number => b !== null).sort((a, b) => a - b);
  const covers = [...new Set(attempts.map((a) => a.covers).filter(Boolean))].join(' | ');
  if (bytes.length === 0) return { method, n: 0, p50Bytes: null, maxBytes: null, note: covers || 'no figure recorded' };
  const partial = isWholeSandbox(method) ? null : covers;
  return { method, n: bytes.length, p50Bytes: quantile(bytes, 0.5), maxBytes: bytes[bytes.length - 1]!, note: partial };
}

/** "61.2 MiB (cgroup-peak, n = 8)", with what a partial figure covers, or why there is none. */
export function memoryText(memory: CellMemory): string {
  if (memory.p50Bytes === null) return `– (${memory.method}${memory.note ? `: ${memory.note}` : ''})`;
  // A figure that covers part of the sandbox says so where it is shown.
  return `${(memory.p50Bytes / 1048576).toFixed(1)} MiB (${memory.method}, n = ${memory.n}${memory.note ? `; ${memory.note}` : ''})`;
}
