/**
 * Every series the soak samples, with what a leak of it would mean and the smallest growth that
 * counts (scripts/soak/verdict.ts): a resource fails only when its Theil–Sen slope's interval is
 * above zero AND its end level exceeds its start level by more than `tolerance`. The tolerances are
 * set at what one campaign cycle can hold at once (a run in flight has its containers, cgroups,
 * mounts and scratch), so a sample that lands mid-run is not growth.
 */
export type ResourceRole =
  /** Must not grow without bound: fails the soak. */
  | 'bounded'
  /** Grows by design (bundles the soak wrote): reported apart, never fails. */
  | 'expected-growth'
  /** Context for reading the others (the machine's load): reported, never judged. */
  | 'context';

export interface Resource {
  id: string;
  unit: string;
  role: ResourceRole;
  /** End-minus-start (in `unit`) below which a positive slope is not called growth. */
  tolerance: number;
  what: string;
}

const bounded = (id: string, unit: string, tolerance: number, what: string): Resource => ({ id, unit, role: 'bounded', tolerance, what });

export const RESOURCES: readonly Resource[] = [
  bounded('harness.rss', 'MiB', 64, 'resident memory of the soak process, which runs the run loop in-process (as one long `sandbench run` would)'),
  bounded('harness.heap', 'MiB', 32, 'V8 heap in use after a full GC (node --expose-gc), the leak signal RSS blurs'),
  bounded('harness.fds', 'fds', 8, 'open file descriptors of the soak process (/proc/self/fd)'),
  bounded('tmp.entries', 'entries', 20, 'top-level entries of /tmp (ctrd-checkpoint*, test temp dirs, dockerd runtime dirs)'),
  bounded('tmp.files', 'files', 500, 'files and dirs under /tmp, recursively (one filesystem)'),
  bounded('state.files', 'files', 500, 'files and dirs under $SANDBENCH_HOME (caches, locks, the private dockerd data root)'),
  bounded('scratch.dirs', 'dirs', 2, 'per-run scratch dirs sandbench-<run> under every scratch root (harness/state-dir.ts scratchRoots)'),
  bounded('scratch.files', 'files', 500, 'files and dirs under the scratch roots, recursively'),
  bounded('bundles.kept.files', 'files', 200, 'files in the bundles the soak keeps (it prunes all but the newest few)'),
  { id: 'bundles.written', unit: 'bundles', role: 'expected-growth', tolerance: 0, what: 'bundles the soak has written (one per run; each is pruned once newer ones exist)' },
  bounded('leftovers', 'resources', 1, 'resources of dead runs that `sandbench clean` would remove (harness/clean/find-leftovers.ts with the backend finders)'),
  bounded('cgroups.sandbench', 'cgroups', 1, 'budget cgroups sandbench-<run>-* at the hierarchy roots (harness/controls/leftover-budgets.ts), v1 or v2'),
  bounded('cgroups.all', 'cgroups', 20, 'every cgroup in the memory hierarchy (v1) or the unified tree (v2), recursively: container runtimes\' own too'),
  bounded('mounts.all', 'mounts', 10, 'lines of /proc/self/mounts'),
  bounded('mounts.sandbench', 'mounts', 1, 'mounts whose path names sandbench- (overlays, binds, fuse), as `clean` finds them'),
  bounded('podman.containers', 'containers', 2, '`podman ps --all`'),
  bounded('podman.images', 'images', 2, '`podman images --all`'),
  bounded('podman.volumes', 'volumes', 1, '`podman volume ls`'),
  bounded('docker.containers', 'containers', 2, 'containers in the private dockerd\'s data root (counted on disk: the daemon stops between runs)'),
  bounded('docker.images', 'images', 2, 'image configs in the private dockerd\'s data root'),
  bounded('docker.volumes', 'volumes', 1, 'volumes in the private dockerd\'s data root'),
  bounded('processes.qemu', 'processes', 1, 'qemu-system-* processes'),
  bounded('processes.dockerd', 'processes', 2, 'processes of the private dockerd (dockerd, containerd, shims: argv names its state dir)'),
  bounded('processes.all', 'processes', 30, 'every process on the machine (zombies included)'),
  bounded('disk.used', 'MiB', 512, 'used space of the filesystems holding /, /tmp, /var/tmp and $SANDBENCH_HOME (summed once per device)'),
  { id: 'load.1m', unit: 'load', role: 'context', tolerance: 0, what: '1-minute load average (the machine is shared)' },
];

export function resource(id: string): Resource {
  const found = RESOURCES.find((r) => r.id === id);
  if (!found) throw new Error(`unknown soak resource "${id}"`);
  return found;
}
