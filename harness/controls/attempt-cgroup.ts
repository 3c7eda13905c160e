/**
 * One sandbox's own cgroup inside a shared budget (issue 30): a child of the budget in every budget
 * controller, entered the way the budget is (enterArgv for launched trees, --cgroup-parent for
 * container engines), so the kernel charges everything the sandbox starts — a container's conmon
 * and init tree, gVisor's sentry and gofer, a VMM — to it, whoever their parent is. Its peak is the
 * kernel's own high-water mark (v1 memory.max_usage_in_bytes, v2 memory.peak), read once at the end
 * instead of polled, so no sandbox is too short to be measured. The budget's limits still apply:
 * cgroup limits are hierarchical.
 */
import { join } from 'node:path';
import type { BudgetPlacement } from '../contracts/executor.ts';
import { BudgetError, enterPlacement, type CgroupBudget } from './cgroup-budget.ts';
import { oomKillsIn, procsUnder, removeCgroupTree, type CgroupIo } from './cgroup-io.ts';
import { separateCpuacct } from './cgroup-layout.ts';
import { killUntilEmpty } from './proc-tree.ts';

const CHILD_NAME = /^[A-Za-z0-9_.-]+$/;
/** v2 controllers a child needs from its parent's subtree_control. */
const V2_CHILD_CONTROLLERS = ['cpu', 'cpuset', 'memory'] as const;

export interface CgroupPeak {
  /** The kernel's peak for this cgroup (bytes); null when the kernel keeps none (v2 before 5.19). */
  bytes: number | null;
  /** The file it was read from, so a reader can cross-check it. */
  file: string;
}

export class AttemptCgroup {
  private destroyed = false;

  private constructor(
    readonly name: string,
    /** Path relative to each hierarchy root, e.g. "/sandbench-r1-rc12/a3" (the --cgroup-parent). */
    readonly relPath: string,
    private readonly budget: CgroupBudget,
    private readonly dirs: readonly string[],
    private readonly memoryDir: string,
    private readonly io: CgroupIo,
    /** Where the kernel counts this cgroup's CPU time (v1 cpuacct.usage, v2 cpu.stat); null when no hierarchy counts it. */
    private readonly cpuFile: string | null,
  ) {}

  /** Make the child in every budget controller, ready to enter; throws BudgetError naming what failed. */
  static create(budget: CgroupBudget, name: string): AttemptCgroup {
    if (!CHILD_NAME.test(name)) throw new BudgetError(`attempt cgroup name "${name}" has characters unsafe for a cgroup path`);
    const { dirs, io } = budget.site();
    const parents = [...new Set(Object.values(dirs))];
    if (budget.version === 2) enableV2Controllers(io, dirs.memory);
    const created: string[] = [];
    try {
      for (const parent of parents) {
        const dir = join(parent, name);
        io.mkdir(dir);
        created.push(dir);
      }
      if (budget.version === 1) inheritCpuset(io, dirs.cpuset, name);
      if (budget.version === 1) io.write(join(dirs.memory, name, 'memory.max_usage_in_bytes'), '0');
      if (budget.version === 1 && !io.exists(join(dirs.cpu, name, 'cpuacct.usage'))) {
        const accounting = v1CpuacctDir(budget, io, name);
        if (accounting) created.push(...accounting.created);
      }
    } catch (error) {
      for (const dir of created.reverse()) io.rmdir(dir);
      throw new BudgetError(`cannot create attempt cgroup ${name} in budget ${budget.name}: ${(error as Error).message}`);
    }
    return new AttemptCgroup(name, `${budget.relPath}/${name}`, budget, created, join(dirs.memory, name), io, cpuUsageFile(budget, io, created, join(dirs.memory, name)));
  }

  placement(clients: BudgetPlacement['clients'] = 'outside'): BudgetPlacement {
    return enterPlacement(this.dirs, { name: `${this.budget.name}/${this.name}`, relPath: this.relPath, version: this.budget.version }, clients);
  }

  peakFile(): string {
    return join(this.memoryDir, this.budget.version === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak');
  }

  /** The kernel's high-water mark of everything charged to this cgroup and its sub-cgroups so far. */
  peak(): CgroupPeak {
    const file = this.peakFile();
    const text = this.io.read(file);
    const bytes = text === null ? null : Number(text.trim());
    return { bytes: bytes !== null && Number.isFinite(bytes) ? bytes : null, file };
  }

  /**
   * OOM kills of this cgroup's processes (v1 memory.oom_control, v2 memory.events `oom_kill`). On v1
   * a kill is counted only in the victim's own cgroup, never in the budget whose limit caused it, so
   * an attempt's kills must be read here, before destroy().
   */
  oomKillCount(): number {
    return oomKillsIn(this.io, this.budget.version, this.memoryDir);
  }

  /**
   * CPU time (ns) the kernel charged to this cgroup and its sub-cgroups so far: every process the
   * attempt ran inside it (sandbox, runtime helpers, scoring), user + system. Null when no mounted
   * hierarchy accounts CPU for it (a v1 host without cpuacct).
   */
  cpuUsageNs(): number | null {
    if (this.cpuFile === null) return null;
    const text = this.io.read(this.cpuFile);
    if (text === null) return null;
    if (this.budget.version === 1) return Number(text.trim());
    const usec = /^usage_usec (\d+)$/m.exec(text);
    return usec ? Number(usec[1]) * 1000 : null;
  }

  /** Every PID in the memory cgroup and its sub-cgroups (a container runtime's libpod-<id>, conmon). */
  procs(): number[] {
    return procsUnder(this.io, this.memoryDir);
  }

  /**
   * Remove the child (and the sub-cgroups runtimes made in every hierarchy), killing what is left
   * inside first if anything is. Idempotent. The removal is tried before any process listing: the
   * kernel refuses to remove a cgroup that still holds a task (EBUSY), so a removal that succeeds
   * proves the attempt left nothing running, and an attempt whose processes all exited (the usual
   * case) costs one rmdir per hierarchy instead of reading its procs and listing its sub-cgroups.
   */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    let failures = this.removeDirectories();
    if (failures.length > 0) {
      await killUntilEmpty(() => this.procs());
      failures = this.removeDirectories();
    }
    this.destroyed = true;
    if (failures.length > 0) throw new BudgetError(`attempt cgroup ${this.relPath} could not be removed: ${failures.join('; ')}`);
  }

  private removeDirectories(): string[] {
    const layout = this.budget.layout;
    const roots = layout.version === 1 ? [...this.dirs, ...layout.others.map((root) => join(root, this.budget.name, this.name))] : this.dirs;
    const failures: string[] = [];
    for (const dir of new Set(roots)) removeCgroupTree(this.io, dir, failures);
    return failures;
  }
}

/**
 * v1 hosts that mount cpuacct apart from cpu (this machine) count CPU only there, so the attempt
 * gets a cpuacct child at the budget's path too: launched trees enter it with the other dirs, and a
 * container engine's --cgroup-parent nests its container under it in every hierarchy. The budget's
 * own cpuacct dir is removed with the budget (it removes its path in every other hierarchy).
 */
function v1CpuacctDir(budget: CgroupBudget, io: CgroupIo, name: string): { created: string[] } | null {
  const root = separateCpuacct(budget.layout);
  if (root === null) return null;
  const created: string[] = [];
  const parent = join(root, budget.name);
  if (!io.exists(parent)) io.mkdir(parent);
  const dir = join(parent, name);
  io.mkdir(dir);
  created.push(dir);
  return { created };
}

/**
 * v1 cpuset children start with empty cpus/mems and refuse tasks until both are set. The budget sets
 * cgroup.clone_children, so the kernel copies the budget's at mkdir. Writing them by hand runs the
 * kernel's check against every sibling and a rebuild of the scheduler domains over every cpuset: O(C)
 * per attempt, and 36% of the harness's CPU at C = 4,000 in harness-scale (perf). A budget made
 * without the flag (an older one, or a parent that refused it) still gets them written.
 */
function inheritCpuset(io: CgroupIo, budgetDir: string, name: string): void {
  for (const file of ['cpuset.cpus', 'cpuset.mems']) {
    const child = join(budgetDir, name, file);
    if ((io.read(child) ?? '').trim() === '') io.write(child, (io.read(join(budgetDir, file)) ?? '').trim());
  }
}

function cpuUsageFile(budget: CgroupBudget, io: CgroupIo, dirs: readonly string[], memoryDir: string): string | null {
  if (budget.version === 2) return join(memoryDir, 'cpu.stat');
  const dir = dirs.find((candidate) => io.exists(join(candidate, 'cpuacct.usage')));
  return dir ? join(dir, 'cpuacct.usage') : null;
}

function enableV2Controllers(io: CgroupIo, budgetDir: string): void {
  const enabled = (io.read(join(budgetDir, 'cgroup.subtree_control')) ?? '').split(/\s+/);
  const missing = V2_CHILD_CONTROLLERS.filter((c) => !enabled.includes(c));
  if (missing.length > 0) io.write(join(budgetDir, 'cgroup.subtree_control'), missing.map((c) => `+${c}`).join(' '));
}
