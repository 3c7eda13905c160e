/**
 * Per-rollout PSS of the sandbox's own processes, sampled while it runs. The launched tree is what
 * the harness spawned (host: the shell and agent; staged: unshare → bwrap and its tree; a VM: the
 * qemu process and its children, e.g. the guestfwd socat). A container engine's launched tree is
 * only its client: the container runs under the engine's supervisor (conmon / containerd shim),
 * outside that tree. So the sampler looks for the attempt's own processes by a marker only they
 * carry — an environment entry unique to the attempt (its model route) — among the processes of the
 * attempt's budget cgroup (a container's cgroup is a child of it); the topmost marked process is the
 * container's init, and its parent (the supervisor) heads the tree that is sampled with the
 * launched one. No engine command is spawned for it (an `inspect` costs the harness ~10 ms of CPU,
 * twice its whole per-rollout target). Once a marked process is seen in the launched tree the
 * search stops: that sandbox is its launched tree. `scope` says which processes the figure covers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PssCache, treePssKiB } from './tree-pss.ts';

export interface SandboxPssProbe {
  /** Host pids of the launched tree's roots. */
  launched(): number[];
  /** An environment entry (`KEY=value`) only this attempt's processes carry; null: no search. */
  marker: string | null;
  /** The budget's memory cgroup directory (where every process of the attempt lives); null: no search. */
  budgetDir: string | null;
}

export interface SandboxPssReport {
  /** Max over samples of Σ PSS of every covered process (KiB); null when nothing was sampled. */
  peakKiB: number | null;
  /** Max over samples of the launched tree alone (the engine client for a container). */
  launchedPeakKiB: number | null;
  /** Max over samples of the processes outside the launched tree (supervisor + container tree); null without any. */
  detachedPeakKiB: number | null;
  samples: number;
  /**
   * The harness's own CPU spent sampling (ms; process.cpuUsage around each sample): smaps_rollup walks
   * the page tables of every process read, ~2 ms per 100 MiB resident here, so it is part of the
   * harness's CPU per rollout and is reported apart.
   */
  cpuMs: number;
  /** smaps_rollup reads made and readings reused (PssCache: resident size within max(1 MiB, 5 %) of the last reading, reading < 5 s old; a reuse adds the resident change). */
  reads: number;
  reuses: number;
  /** Which processes the figure covers, e.g. `launched tree (sh)`, `launched tree (podman) + conmon + container tree`. */
  scope: string;
}

/** Ticks the search runs while nothing carrying the marker has been seen (a VM's processes never are). */
const MAX_SEARCHES = 40;

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

const commOf = (pid: number) => readOrNull(`/proc/${pid}/comm`)?.trim() ?? null;

function parentOf(pid: number): number | null {
  const match = /^PPid:\s+(\d+)$/m.exec(readOrNull(`/proc/${pid}/status`) ?? '');
  return match ? Number(match[1]) : null;
}

/** Does the process's environment hold exactly this entry? */
export function carriesMarker(pid: number, marker: string): boolean {
  return (readOrNull(`/proc/${pid}/environ`) ?? '').split('\0').includes(marker);
}

/** Every pid in a cgroup directory and its sub-cgroups (a container runtime's child cgroups). */
export function cgroupPids(dir: string): number[] {
  const out: number[] = [];
  const walk = (path: string) => {
    for (const line of (readOrNull(join(path, 'cgroup.procs')) ?? '').split('\n')) if (line.trim()) out.push(Number(line));
    let entries;
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) walk(join(path, entry.name));
  };
  walk(dir);
  return out;
}

/**
 * The root of the attempt's processes outside the launched tree: the supervisor (parent) of the
 * topmost marked process, or that process when its parent is not a per-sandbox process (init, the
 * harness, the launched tree). null when none is marked.
 */
export function findDetachedRoot(candidates: readonly number[], marker: string, launched: ReadonlySet<number>): { root: number; label: string } | null {
  const marked = new Set(candidates.filter((pid) => !launched.has(pid) && carriesMarker(pid, marker)));
  for (const pid of marked) {
    const parent = parentOf(pid);
    if (parent !== null && marked.has(parent)) continue;
    const isSupervisor = parent !== null && parent > 1 && parent !== process.pid && !launched.has(parent);
    if (!isSupervisor) return { root: pid, label: `${commOf(pid) ?? 'process'} tree` };
    return { root: parent, label: `${commOf(parent) ?? 'supervisor'} + container tree` };
  }
  return null;
}

export function startSandboxPss(probe: SandboxPssProbe, intervalMs: number): { stop(): SandboxPssReport } {
  let peak: number | null = null;
  let launchedPeak: number | null = null;
  let detachedPeak: number | null = null;
  let samples = 0;
  let cpuMicros = 0;
  const cache = new PssCache();
  let launchedNames: string[] | null = null;
  let detached: { root: number; label: string } | null = null;
  // 'tree': the launched tree carries the marker (host, staged); 'found': the container's root is known.
  let decided: 'tree' | 'found' | null = probe.marker === null || probe.budgetDir === null ? 'tree' : null;
  let searches = 0;

  const search = (launchedPids: readonly number[]) => {
    if (decided !== null || searches >= MAX_SEARCHES) return;
    searches += 1;
    const marker = probe.marker!;
    if (launchedPids.some((pid) => carriesMarker(pid, marker))) {
      decided = 'tree';
      return;
    }
    detached = findDetachedRoot(cgroupPids(probe.budgetDir!), marker, new Set(launchedPids));
    if (detached) decided = 'found';
  };

  const sample = () => {
    const before = process.cpuUsage();
    try {
      sampleOnce();
    } finally {
      const used = process.cpuUsage(before);
      cpuMicros += used.user + used.system;
    }
  };
  const sampleOnce = () => {
    const roots = probe.launched();
    const launched = treePssKiB(roots, new Set(), cache);
    search(launched.pids);
    // The detached tree after the launched one: a process is counted once.
    const outside = detached ? treePssKiB([detached.root], new Set(launched.pids), cache) : null;
    if (launched.processes === 0 && (outside?.processes ?? 0) === 0) return;
    launchedNames ??= roots.map(commOf).filter((name): name is string => name !== null);
    samples += 1;
    peak = Math.max(peak ?? 0, launched.pssKiB + (outside?.pssKiB ?? 0));
    launchedPeak = Math.max(launchedPeak ?? 0, launched.pssKiB);
    if (outside && outside.processes > 0) detachedPeak = Math.max(detachedPeak ?? 0, outside.pssKiB);
  };
  const first = setTimeout(sample, Math.min(100, intervalMs));
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
      const launchedPart = `launched tree (${launchedNames && launchedNames.length > 0 ? launchedNames.join(', ') : 'not sampled'})`;
      const found = detached as { root: number; label: string } | null;
      let scope = launchedPart;
      if (found && detachedPeak !== null) scope = `${launchedPart} + ${found.label}`;
      else if (decided === null) scope = `${launchedPart}; no other process of this attempt seen on the host`;
      return { peakKiB: peak, launchedPeakKiB: launchedPeak, detachedPeakKiB: detachedPeak, samples, cpuMs: cpuMicros / 1000, reads: cache.reads, reuses: cache.reuses, scope };
    },
  };
}
