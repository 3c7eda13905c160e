/**
 * A shared resource budget: one cgroup (v1: one directory per controller; v2: one directory)
 * named `sandbench-<runId>-<label>`, limits written and read back before use, sampled for memory,
 * watched for OOM kills, and destroyed (leftover processes killed, directories removed).
 */
import { join } from 'node:path';
import type { BudgetPlacement } from '../contracts/executor.ts';
import type { CleanupRegistry, ResourceHandle } from '../run/cleanup-registry.ts';
import { BUDGET_CONTROLLERS, detectCgroupLayout, type BudgetController, type CgroupLayout } from './cgroup-layout.ts';
import { nodeCgroupIo, oomKillsIn, procsUnder, removeCgroupTree, type CgroupIo } from './cgroup-io.ts';
import {
  DEFAULT_CFS_PERIOD_US,
  V2_SUBTREE_CONTROL,
  v1Settings,
  v2Settings,
  type BudgetLimits,
  type SettingWrite,
} from './budget-settings.ts';
import { parseCpuList } from './cpu-affinity.ts';
import { killUntilEmpty, procCgroups, type ProcCgroups } from './proc-tree.ts';

export interface BudgetOptions {
  runId: string;
  label: string;
  cpus: string;
  /** The spec field that set `cpus` (e.g. `rollout.budget_cpus`): the error for CPUs this host lacks names it. */
  cpusField?: string;
  memoryMiB: number;
  cfsPeriodUs?: number;
  layout?: CgroupLayout;
  io?: CgroupIo;
  cleanup?: CleanupRegistry;
}

/** What was verified, for the trial record's facts. */
export interface BudgetFacts {
  name: string;
  cgroup_version: 1 | 2;
  path: string;
  /** file → value read back after writing. */
  read_back: Record<string, string>;
  notes: string[];
}

const SAFE_NAME = /^[A-Za-z0-9_.+-]+$/;

export class BudgetError extends Error {
  override name = 'BudgetError';
}

/**
 * How launched trees enter a cgroup: a shell writes its own PID into cgroup.procs of every
 * controller directory, then execs the real argv (same PID), so everything it starts is born inside.
 */
export function enterPlacement(dirs: readonly string[], cgroup: { name: string; relPath: string; version: 1 | 2 }, clients: BudgetPlacement['clients']): BudgetPlacement {
  const writes = dirs.map((dir) => `echo $$ > '${join(dir, 'cgroup.procs')}'`).join(' && ');
  const script = `${writes} && exec "$@"; echo "sandbench: could not enter budget ${cgroup.name}" >&2; exit 125`;
  return { enterArgv: ['/bin/sh', '-c', script, 'sandbench-enter'], cgroupParent: cgroup.relPath, cgroupVersion: cgroup.version, clients };
}

export class CgroupBudget {
  readonly name: string;
  /** Path relative to each hierarchy root, e.g. "/sandbench-r1-b0003" (the --cgroup-parent). */
  readonly relPath: string;
  readonly version: 1 | 2;
  readonly limits: BudgetLimits;
  private readonly cpusField: string;
  private readonly dirs: Record<BudgetController, string>;
  private readonly readBack: Record<string, string> = {};
  private readonly notes: string[] = [];
  private cleanupHandle: ResourceHandle | null = null;
  private destroyed = false;

  private constructor(
    options: BudgetOptions,
    readonly layout: CgroupLayout,
    private readonly io: CgroupIo,
    private readonly cleanup: CleanupRegistry | undefined,
  ) {
    // Never ':' (a cell label's backend:variant becomes '+', which no arm label holds): the lines of
    // /proc/<pid>/cgroup are ':'-separated, and runsc 20221219 refuses a path holding one ("invalid
    // cgroups file"), so podman:runsc workers exited 126 under their budget.
    this.name = `sandbench-${options.runId}-${options.label.replaceAll(':', '+')}`;
    if (!SAFE_NAME.test(this.name)) throw new BudgetError(`budget name "${this.name}" has characters unsafe for a cgroup path`);
    this.relPath = `/${this.name}`;
    this.cpusField = options.cpusField ?? 'the budget\'s CPU list';
    this.version = layout.version;
    const root = (c: BudgetController) => (layout.version === 1 ? layout.mounts[c] : layout.mount);
    this.dirs = { memory: join(root('memory'), this.name), cpu: join(root('cpu'), this.name), cpuset: join(root('cpuset'), this.name) };
    const mems = this.parentValue('cpuset', layout.version === 1 ? 'cpuset.mems' : 'cpuset.mems.effective') ?? '0';
    this.limits = {
      cpus: options.cpus,
      mems,
      memoryMiB: options.memoryMiB,
      swapBytes: 0,
      cfsPeriodUs: options.cfsPeriodUs ?? DEFAULT_CFS_PERIOD_US,
    };
  }

  /** Create, write every limit, read every limit back; throws BudgetError naming the limit that did not stick. */
  static create(options: BudgetOptions): CgroupBudget {
    const budget = new CgroupBudget(options, options.layout ?? detectCgroupLayout(), options.io ?? nodeCgroupIo, options.cleanup);
    budget.checkCpusAvailable();
    budget.makeDirectories();
    try {
      budget.applyAndVerify(budget.version === 1 ? v1Settings(budget.limits) : v2Settings(budget.limits));
      budget.resetPeak();
    } catch (error) {
      budget.removeDirectories();
      throw error;
    }
    return budget;
  }

  private parentValue(controller: BudgetController, file: string): string | null {
    const parent = join(this.dirs[controller], '..');
    const text = this.io.read(join(parent, file));
    return text === null || text.trim() === '' ? null : text.trim();
  }

  private checkCpusAvailable(): void {
    const parentCpus = this.parentValue('cpuset', this.version === 1 ? 'cpuset.cpus' : 'cpuset.cpus.effective');
    if (parentCpus === null) return;
    const available = new Set(parseCpuList(parentCpus));
    const missing = parseCpuList(this.limits.cpus).filter((cpu) => !available.has(cpu));
    if (missing.length > 0) {
      throw new BudgetError(`budget CPUs ${this.limits.cpus} include ${missing.join(',')} which the parent cpuset (${parentCpus}) does not have; change ${this.cpusField}`);
    }
  }

  private makeDirectories(): void {
    if (this.version === 2) {
      // v2: controllers must be delegated by the parent before the child can set them.
      const parent = join(this.dirs.memory, '..');
      const enabled = (this.io.read(join(parent, 'cgroup.subtree_control')) ?? '').split(/\s+/);
      if (!['cpu', 'cpuset', 'memory'].every((c) => enabled.includes(c))) {
        this.io.write(join(parent, 'cgroup.subtree_control'), V2_SUBTREE_CONTROL);
      }
    }
    const created: string[] = [];
    try {
      for (const dir of new Set(Object.values(this.dirs))) {
        if (this.io.exists(dir)) throw new BudgetError(`budget cgroup ${dir} already exists (a leftover of an earlier run? run \`sandbench clean\`)`);
        this.io.mkdir(dir);
        created.push(dir);
      }
    } catch (error) {
      for (const dir of created.reverse()) this.io.rmdir(dir);
      throw error instanceof BudgetError ? error : new BudgetError(`cannot create budget cgroup ${this.name}: ${(error as Error).message} (needs root)`);
    }
    this.cleanupHandle = this.cleanup?.register('cgroup', this.name, () => this.destroy()) ?? null;
  }

  private applyAndVerify(settings: SettingWrite[]): void {
    for (const setting of settings) {
      const path = join(this.dirs[setting.controller], setting.file);
      if (!this.io.exists(path)) {
        if (setting.optional) {
          this.notes.push(setting.optional);
          continue;
        }
        throw new BudgetError(`budget ${this.name}: ${setting.file} does not exist in ${this.dirs[setting.controller]}`);
      }
      try {
        this.io.write(path, setting.value);
      } catch (error) {
        throw new BudgetError(`budget ${this.name}: writing ${setting.value} to ${setting.file} failed: ${(error as Error).message}`);
      }
    }
    // Read back only after all writes: a later write must not have undone an earlier one.
    for (const setting of settings) {
      const path = join(this.dirs[setting.controller], setting.file);
      if (!this.io.exists(path) && setting.optional) continue;
      const text = (this.io.read(path) ?? '').trim();
      this.readBack[setting.file] = text;
      if (!setting.matches(text)) {
        throw new BudgetError(`budget ${this.name}: ${setting.file} reads back "${text}" after writing "${setting.value}"; the limit did not stick`);
      }
    }
  }

  /** v1 memory.max_usage_in_bytes is reset by writing 0; v2 memory.peak starts at zero in a new cgroup. */
  private resetPeak(): void {
    if (this.version === 1) this.io.write(join(this.dirs.memory, 'memory.max_usage_in_bytes'), '0');
  }

  facts(): BudgetFacts {
    return { name: this.name, cgroup_version: this.version, path: this.relPath, read_back: { ...this.readBack }, notes: [...this.notes] };
  }

  /** How launched trees enter the budget itself (enterPlacement). */
  placement(clients: BudgetPlacement['clients'] = 'outside'): BudgetPlacement {
    return enterPlacement([...new Set(Object.values(this.dirs))], { name: this.name, relPath: this.relPath, version: this.version }, clients);
  }

  /** Where a child cgroup of this budget lives (attempt-cgroup.ts): the controller directories and the io they are written with. */
  site(): { dirs: Readonly<Record<BudgetController, string>>; io: CgroupIo } {
    return { dirs: this.dirs, io: this.io };
  }

  /** Move an already running process in (e.g. a runtime helper found outside). */
  adopt(pid: number): void {
    for (const dir of new Set(Object.values(this.dirs))) this.io.write(join(dir, 'cgroup.procs'), String(pid));
  }

  memoryCurrentBytes(): number {
    const file = this.version === 1 ? 'memory.usage_in_bytes' : 'memory.current';
    const text = this.io.read(join(this.dirs.memory, file));
    if (text === null) throw new BudgetError(`budget ${this.name}: cannot read ${file}`);
    return Number(text.trim());
  }

  /** Kernel-tracked peak (v1 max_usage_in_bytes, v2 memory.peak ≥ 5.19); null when the kernel has none. */
  kernelPeakBytes(): number | null {
    const file = this.version === 1 ? 'memory.max_usage_in_bytes' : 'memory.peak';
    const text = this.io.read(join(this.dirs.memory, file));
    return text === null ? null : Number(text.trim());
  }

  /** OOM kills inside the budget so far (v1 memory.oom_control `oom_kill`, v2 memory.events `oom_kill`). */
  oomKillCount(): number {
    return oomKillsIn(this.io, this.version, this.dirs.memory);
  }

  /** Every PID in the budget's memory tree (sub-cgroups made by container runtimes included). */
  procs(): number[] {
    return procsUnder(this.io, this.dirs.memory);
  }

  /** Is a process (given its /proc/<pid>/cgroup) inside the budget in every budget controller? */
  containsCgroups(cgroups: ProcCgroups): { inside: boolean; where: string } {
    const under = (path: string | undefined | null) => path !== undefined && path !== null && (path === this.relPath || path.startsWith(`${this.relPath}/`));
    if (this.version === 2) return { inside: under(cgroups.v2), where: cgroups.v2 ?? '(none)' };
    const wrong = BUDGET_CONTROLLERS.filter((c) => !under(cgroups.v1.get(c)));
    return { inside: wrong.length === 0, where: wrong.map((c) => `${c}:${cgroups.v1.get(c) ?? '(none)'}`).join(' ') };
  }

  contains(pid: number): boolean | null {
    const cgroups = procCgroups(pid);
    return cgroups === null ? null : this.containsCgroups(cgroups).inside;
  }

  /** Kill whatever is left inside, wait for the cgroups to empty, remove them. Idempotent. */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    await killUntilEmpty(() => this.procs());
    this.removeDirectories();
    this.destroyed = true;
    if (this.cleanupHandle) this.cleanup?.forget(this.cleanupHandle);
  }

  private removeDirectories(): void {
    const failures: string[] = [];
    for (const dir of new Set(Object.values(this.dirs))) removeCgroupTree(this.io, dir, failures);
    // runc creates the container sub-cgroups of a --cgroup-parent in every v1 hierarchy.
    if (this.layout.version === 1) for (const root of this.layout.others) removeCgroupTree(this.io, join(root, this.name), failures);
    if (failures.length > 0) throw new BudgetError(`budget ${this.name} could not be removed: ${failures.join('; ')}`);
  }
}
