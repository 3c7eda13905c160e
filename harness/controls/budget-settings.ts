/**
 * The files a budget writes and how each must read back, per cgroup version. Pure: the same
 * limits always give the same list, so the v2 logic is unit-tested on machines without v2.
 */
import { formatCpuList, parseCpuList, sameCpuSet } from './cpu-affinity.ts';
import type { BudgetController } from './cgroup-layout.ts';

export interface BudgetLimits {
  /** cpuset, e.g. "0-1"; the CFS quota allows exactly this many CPUs. */
  cpus: string;
  /** NUMA nodes for cpuset.mems (default: the parent's). */
  mems: string;
  memoryMiB: number;
  /** Only zero swap is supported (the study's budget). */
  swapBytes: 0;
  /** CFS period; 100 ms is the kernel default (Documentation/scheduler/sched-bwc.rst). */
  cfsPeriodUs: number;
}

export const DEFAULT_CFS_PERIOD_US = 100_000;

export interface SettingWrite {
  controller: BudgetController;
  file: string;
  value: string;
  /** Absent file = skipped with a recorded note instead of an error (e.g. memsw without swapaccount). */
  optional?: string;
  /** Does the read-back text satisfy the limit? */
  matches: (readBack: string) => boolean;
}

export function memoryBytes(limits: BudgetLimits): number {
  return Math.round(limits.memoryMiB * 1024 * 1024);
}

export function cfsQuotaUs(limits: BudgetLimits): number {
  return parseCpuList(limits.cpus).length * limits.cfsPeriodUs;
}

const numberIs = (expected: number) => (text: string) => Number(text.trim()) === expected;

/**
 * cgroup v1, in write order: cpuset first (tasks cannot join an empty cpuset), then memory.limit
 * before memory.memsw.limit (memsw must stay ≥ limit, Documentation/admin-guide/cgroup-v1/memory.rst).
 * memsw = limit means zero swap; swappiness 0 keeps the kernel from preferring to swap anyway.
 */
export function v1Settings(limits: BudgetLimits): SettingWrite[] {
  const bytes = memoryBytes(limits);
  const cpus = formatCpuList(parseCpuList(limits.cpus));
  return [
    { controller: 'cpuset', file: 'cpuset.cpus', value: cpus, matches: (t) => sameCpuSet(t, cpus) },
    { controller: 'cpuset', file: 'cpuset.mems', value: limits.mems, matches: (t) => sameCpuSet(t, limits.mems) },
    // Attempt cpusets (attempt-cgroup.ts) then get the budget's CPUs and memory nodes from the kernel
    // at mkdir, instead of a write that checks every sibling and rebuilds the scheduler domains.
    { controller: 'cpuset', file: 'cgroup.clone_children', value: '1', matches: numberIs(1) },
    { controller: 'cpu', file: 'cpu.cfs_period_us', value: String(limits.cfsPeriodUs), matches: numberIs(limits.cfsPeriodUs) },
    { controller: 'cpu', file: 'cpu.cfs_quota_us', value: String(cfsQuotaUs(limits)), matches: numberIs(cfsQuotaUs(limits)) },
    { controller: 'memory', file: 'memory.limit_in_bytes', value: String(bytes), matches: numberIs(bytes) },
    {
      controller: 'memory',
      file: 'memory.memsw.limit_in_bytes',
      value: String(bytes + limits.swapBytes),
      optional: 'memory.memsw.* absent (kernel without swap accounting): zero swap rests on swappiness 0 and the host having no swap',
      matches: numberIs(bytes + limits.swapBytes),
    },
    { controller: 'memory', file: 'memory.swappiness', value: '0', matches: numberIs(0) },
  ];
}

/** cgroup v2 (Documentation/admin-guide/cgroup-v2.rst): one directory, all controllers. */
export function v2Settings(limits: BudgetLimits): SettingWrite[] {
  const bytes = memoryBytes(limits);
  const cpus = formatCpuList(parseCpuList(limits.cpus));
  const cpuMax = `${cfsQuotaUs(limits)} ${limits.cfsPeriodUs}`;
  return [
    { controller: 'cpuset', file: 'cpuset.cpus', value: cpus, matches: (t) => sameCpuSet(t, cpus) },
    { controller: 'cpuset', file: 'cpuset.mems', value: limits.mems, matches: (t) => sameCpuSet(t, limits.mems) },
    { controller: 'cpu', file: 'cpu.max', value: cpuMax, matches: (t) => t.trim() === cpuMax },
    { controller: 'memory', file: 'memory.max', value: String(bytes), matches: numberIs(bytes) },
    {
      controller: 'memory',
      file: 'memory.swap.max',
      value: String(limits.swapBytes),
      optional: 'memory.swap.max absent (kernel without swap accounting): zero swap rests on the host having no swap',
      matches: numberIs(limits.swapBytes),
    },
  ];
}

/** Controllers the parent must delegate (`cgroup.subtree_control`) before a v2 child can set them. */
export const V2_SUBTREE_CONTROL = '+cpu +cpuset +memory';
