/**
 * Which cgroup hierarchy carries the memory/cpu/cpuset controllers. Hybrid hosts (this CI machine)
 * mount v1 controllers under /sys/fs/cgroup/<controller> plus an empty unified v2 tree; most users'
 * machines are pure v2 with every controller at /sys/fs/cgroup.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const BUDGET_CONTROLLERS = ['memory', 'cpu', 'cpuset'] as const;
export type BudgetController = (typeof BUDGET_CONTROLLERS)[number];

export type CgroupLayout =
  /** `others`: every other cgroup hierarchy (blkio, pids, freezer, name=systemd, the unified tree...):
   *  container runtimes create the budget's sub-cgroups there too, so destroy must look there. */
  | {
      version: 1;
      mounts: Record<BudgetController, string>;
      others: string[];
      /** The hierarchy that counts CPU time (cpuacct): co-mounted with cpu on most hosts, apart (one of `others`) on some; null when none is mounted. */
      cpuacct: string | null;
    }
  | { version: 2; mount: string };

export interface LayoutSources {
  /** Contents of /proc/self/mounts. */
  mounts: string;
  /** Reads a file, null when absent (injected so tests can describe a v2 machine). */
  readFile: (path: string) => string | null;
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

export function hostLayoutSources(): LayoutSources {
  return { mounts: readFileSync('/proc/self/mounts', 'utf8'), readFile: readOrNull };
}

/** v1 wins when all three controllers are bound to v1 mounts (a controller lives in one hierarchy only). */
export function detectCgroupLayout(sources: LayoutSources = hostLayoutSources()): CgroupLayout {
  const v1: Partial<Record<BudgetController, string>> = {};
  const all: string[] = [];
  let v2Mount: string | null = null;
  let cpuacct: string | null = null;
  for (const line of sources.mounts.split('\n')) {
    const [, mountPoint, fsType, options] = line.split(' ');
    if (!mountPoint || !options) continue;
    if (fsType === 'cgroup' || fsType === 'cgroup2') all.push(mountPoint);
    if (fsType === 'cgroup2' && v2Mount === null) v2Mount = mountPoint;
    if (fsType !== 'cgroup') continue;
    const opts = options.split(',');
    if (opts.includes('cpuacct') && cpuacct === null) cpuacct = mountPoint;
    for (const controller of BUDGET_CONTROLLERS) if (opts.includes(controller) && !v1[controller]) v1[controller] = mountPoint;
  }
  if (v1.memory && v1.cpu && v1.cpuset) {
    const mounts = { memory: v1.memory, cpu: v1.cpu, cpuset: v1.cpuset };
    return { version: 1, mounts, others: all.filter((m) => !Object.values(mounts).includes(m)), cpuacct };
  }
  if (v2Mount) {
    const controllers = (sources.readFile(join(v2Mount, 'cgroup.controllers')) ?? '').trim().split(/\s+/);
    const missing = BUDGET_CONTROLLERS.filter((c) => !controllers.includes(c));
    if (missing.length === 0) return { version: 2, mount: v2Mount };
    throw new Error(
      `cgroup v2 at ${v2Mount} lacks the ${missing.join(', ')} controller(s) and no v1 mount provides them; ` +
        'a density budget needs memory, cpu and cpuset (boot with systemd.unified_cgroup_hierarchy=1 or mount the v1 controllers)',
    );
  }
  throw new Error('no cgroup hierarchy with memory, cpu and cpuset controllers is mounted; density budgets need one');
}

/**
 * The cpuacct hierarchy when it is mounted apart from cpu (one of `others`), else null: there an
 * attempt's CPU is counted only in a cpuacct dir of its own, which launches must enter too.
 */
export function separateCpuacct(layout: CgroupLayout): string | null {
  return layout.version === 1 && layout.cpuacct !== null && layout.others.includes(layout.cpuacct) ? layout.cpuacct : null;
}

export function layoutIsUsable(layout: CgroupLayout): boolean {
  return layout.version === 1 ? BUDGET_CONTROLLERS.every((c) => existsSync(layout.mounts[c])) : existsSync(layout.mount);
}
