/**
 * Every memory figure says how it was measured and what it covers (issue 30), so a figure that
 * covers only part of a sandbox is never averaged or compared with whole-sandbox figures unawares:
 * - `cgroup-peak`: the kernel's high-water mark of the sandbox's own cgroup (attempt-cgroup.ts):
 *   everything the sandbox started, whoever its parent (conmon and the container, gVisor's sentry and
 *   gofer, a VMM);
 * - `cgroup-peak-helpers-outside`: the same, but the backend's runtime helper starts outside any
 *   cgroup the harness names (docker's containerd-shim), so it is not counted;
 * - `process-tree-pss`: Σ PSS of the launched tree, sampled: the whole sandbox only where the backend
 *   charges to its process tree (traits.memoryAccounting); sub-second sandboxes may end between samples;
 * - `process-tree-pss-partial`: the same walk on a backend whose sandbox is not the launched tree's
 *   descendants (an engine client's): part of the sandbox, kept for per-process detail only;
 * - `none`: no figure, with the reason in `covers`.
 */
import type { BackendTraits } from '../backends.ts';
import type { CgroupPeak } from './attempt-cgroup.ts';

export const MEMORY_METHODS = ['cgroup-peak', 'cgroup-peak-helpers-outside', 'process-tree-pss', 'process-tree-pss-partial', 'none'] as const;
export type MemoryMethod = (typeof MEMORY_METHODS)[number];

export interface SandboxMemory {
  method: MemoryMethod;
  /** Peak bytes; null when method is `none`. */
  bytes: number | null;
  /** What the figure covers, or why there is none. */
  covers: string;
  /** The kernel file the peak was read from (cgroup methods). */
  file: string | null;
}

/** A sandbox's memory from its own cgroup's peak (null: it had no cgroup of its own, `why`). */
export function cgroupPeakMemory(traits: BackendTraits, peak: CgroupPeak | null, why = 'the sandbox had no cgroup of its own'): SandboxMemory {
  if (peak === null) return { method: 'none', bytes: null, covers: why, file: null };
  if (peak.bytes === null) return { method: 'none', bytes: null, covers: `the kernel keeps no peak in ${peak.file} (cgroup v2 before Linux 5.19)`, file: peak.file };
  // A backend that ignored the placement (--cgroup-parent, enterArgv) leaves its cgroup empty: a zero is no measurement.
  if (peak.bytes === 0) return { method: 'none', bytes: null, covers: `nothing was charged to ${peak.file}: the backend did not start the sandbox in its cgroup`, file: peak.file };
  if (traits.runtimeHelpersOutsideCgroup) {
    return { method: 'cgroup-peak-helpers-outside', bytes: peak.bytes, covers: "the sandbox's cgroup; its runtime helper starts outside it and is not counted", file: peak.file };
  }
  const client = traits.launch === 'engine-client' ? `; the ${traits.clientCommand ?? 'engine'} client stays outside by design` : '';
  return { method: 'cgroup-peak', bytes: peak.bytes, covers: `the sandbox's cgroup: everything it started${client}`, file: peak.file };
}

/** The method of a process-tree PSS figure on this backend: whole sandbox, or part of it. */
export function processTreePssMethod(traits: BackendTraits): MemoryMethod {
  return traits.memoryAccounting === 'process-tree' ? 'process-tree-pss' : 'process-tree-pss-partial';
}

/** Methods whose figures may be pooled or compared: the whole sandbox, measured alike. */
export function comparableMemoryMethods(a: MemoryMethod, b: MemoryMethod): boolean {
  return a === b && a !== 'none' && a !== 'process-tree-pss-partial';
}
