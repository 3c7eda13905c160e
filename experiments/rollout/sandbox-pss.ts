/**
 * Per-rollout PSS of the sandbox's own processes, sampled while it runs. The launched tree is what
 * the harness spawned (host: the shell and agent; staged: bwrap and its tree; a VM: the qemu process
 * and its children, e.g. the guestfwd socat). A container engine's launched tree is only its client:
 * the container runs under the engine's supervisor (conmon / containerd shim), outside that tree, so
 * for an executor that can name a container's host pids (the container executors' read-only
 * `containerPids`, asked until the container is up) the supervisor's tree — the supervisor, the
 * container's init and everything it starts — is sampled too. `scope` says which processes the
 * figure covers, so a reader can tell a client-only figure from a whole-sandbox one.
 */
import { readFileSync } from 'node:fs';
import { treePssKiB } from './tree-pss.ts';

/** A container's host pids as the container executors report them. */
export interface DetachedPids {
  init: number | null;
  supervisor: number | null;
  supervisorKind: string;
}

export interface SandboxPssProbe {
  /** Host pids of the launched tree's roots. */
  launched(): number[];
  /** The sandbox's processes outside the launched tree (a container); absent for backends with none. */
  detached?: () => Promise<DetachedPids>;
}

export interface SandboxPssReport {
  /** Max over samples of Σ PSS of every covered process (KiB); null when nothing was sampled. */
  peakKiB: number | null;
  /** Max over samples of the launched tree alone (the engine client for a container). */
  launchedPeakKiB: number | null;
  /** Max over samples of the container's processes alone (supervisor + init tree); null without one. */
  detachedPeakKiB: number | null;
  samples: number;
  /** Which processes the figure covers, e.g. `launched tree (sh)`, `launched tree (podman) + conmon + container tree`. */
  scope: string;
}

/** How many times an unresolved container is asked for its pids (one engine `inspect` each) before the figure stays client-only. */
const MAX_RESOLVES = 10;

function commOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

export function startSandboxPss(probe: SandboxPssProbe, intervalMs: number): { stop(): SandboxPssReport } {
  let peak: number | null = null;
  let launchedPeak: number | null = null;
  let detachedPeak: number | null = null;
  let samples = 0;
  let launchedNames: string[] | null = null;
  let detachedRoots: number[] | null = null;
  let detachedLabel: string | null = null;
  let resolving = false;
  let resolves = 0;
  let stopped = false;

  const resolve = () => {
    if (!probe.detached || detachedRoots || resolving || resolves >= MAX_RESOLVES) return;
    resolving = true;
    resolves += 1;
    probe
      .detached()
      .then((pids) => {
        if (stopped || pids.init === null) return;
        // The supervisor's tree holds the container's init; without a supervisor, the init's tree.
        detachedRoots = [pids.supervisor ?? pids.init];
        detachedLabel = pids.supervisor !== null ? `${pids.supervisorKind} + container tree` : 'container tree';
      })
      .catch(() => undefined) // not up yet, or already gone: asked again on the next tick
      .finally(() => (resolving = false));
  };

  const sample = () => {
    resolve();
    const roots = probe.launched();
    // One walk with the container roots after the launched ones: a process is counted once.
    const launched = treePssKiB(roots);
    const detached = detachedRoots ? treePssKiB(detachedRoots, new Set(launched.pids)) : null;
    if (launched.processes === 0 && (detached?.processes ?? 0) === 0) return;
    launchedNames ??= roots.map(commOf).filter((name): name is string => name !== null);
    samples += 1;
    const total = launched.pssKiB + (detached?.pssKiB ?? 0);
    peak = Math.max(peak ?? 0, total);
    launchedPeak = Math.max(launchedPeak ?? 0, launched.pssKiB);
    if (detached && detached.processes > 0) detachedPeak = Math.max(detachedPeak ?? 0, detached.pssKiB);
  };
  const first = setTimeout(sample, Math.min(100, intervalMs));
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      const launchedPart = `launched tree (${launchedNames && launchedNames.length > 0 ? launchedNames.join(', ') : 'not sampled'})`;
      let scope = launchedPart;
      if (detachedLabel !== null && detachedPeak !== null) scope = `${launchedPart} + ${detachedLabel}`;
      else if (probe.detached) scope = `${launchedPart} only: the container's processes were not found while it ran`;
      return { peakKiB: peak, launchedPeakKiB: launchedPeak, detachedPeakKiB: detachedPeak, samples, scope };
    },
  };
}
