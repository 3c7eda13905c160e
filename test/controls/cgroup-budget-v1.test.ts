/** Real cgroup v1 budgets (this CI machine is v1 hybrid); skipped where v1 controllers are not mounted. */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { leftoverBudgets } from '../../harness/controls/leftover-budgets.ts';
import { describe, expect, it } from 'vitest';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { checkMembership, expectedProcesses } from '../../harness/controls/budget-membership.ts';
import { startPeakSampler } from '../../harness/controls/memory-sampler.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';

const layout = (() => {
  try {
    return detectCgroupLayout();
  } catch {
    return null;
  }
})();
const v1 = layout?.version === 1 && process.getuid?.() === 0;
const runId = `t${process.pid}`;

function waitExit(child: ReturnType<typeof spawn>): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
}

describe.skipIf(!v1)('cgroup v1 budget', () => {
  it('writes 2 CPUs, 2 GiB, zero swap and reads every limit back', async () => {
    const cleanup = new CleanupRegistry(runId);
    const budget = CgroupBudget.create({ runId, label: 'limits', cpus: '0-1', memoryMiB: 2048, cleanup });
    try {
      const facts = budget.facts();
      expect(facts.cgroup_version).toBe(1);
      expect(facts.read_back['memory.limit_in_bytes']).toBe(String(2 * 1024 ** 3));
      expect(facts.read_back['memory.memsw.limit_in_bytes']).toBe(String(2 * 1024 ** 3));
      expect(facts.read_back['memory.swappiness']).toBe('0');
      expect(facts.read_back['cpu.cfs_quota_us']).toBe('200000');
      expect(facts.read_back['cpu.cfs_period_us']).toBe('100000');
      expect(facts.read_back['cpuset.cpus']).toBe('0-1');
      expect(cleanup.pending().map((h) => h.name)).toEqual([`sandbench-${runId}-limits`]);
      // What runc does with --cgroup-parent on v1: the container's cgroup in every hierarchy.
      if (layout?.version === 1) for (const root of layout.others.filter((r) => r.endsWith('/pids'))) mkdirSync(join(root, budget.name, 'libpod-x'), { recursive: true });
    } finally {
      await cleanup.releaseAll();
    }
    expect(cleanup.pending()).toEqual([]);
    expect(leftoverBudgets(runId)).toEqual([]);
  });

  it('refuses a CPU the machine does not have, naming the field to change', () => {
    expect(() => CgroupBudget.create({ runId, label: 'badcpu', cpus: '0-511', memoryMiB: 64, cpusField: 'rollout.budget_cpus' })).toThrow(/change rollout\.budget_cpus$/);
    expect(() => CgroupBudget.create({ runId, label: 'badcpu2', cpus: '0-511', memoryMiB: 64 })).toThrow(/change the budget's CPU list$/);
  });

  it('places a launched tree through enterArgv, finds escapees, and destroys leftovers', async () => {
    const budget = CgroupBudget.create({ runId, label: 'place', cpus: '0-1', memoryMiB: 256 });
    const token = `sandbench-token-${runId}`;
    const { enterArgv } = budget.placement();
    const inside = spawn(enterArgv[0]!, [...enterArgv.slice(1), 'sh', '-c', 'sleep 30; : "$0"', token], { stdio: 'ignore' });
    const outside = spawn('sh', ['-c', 'sleep 30; : "$0"', token], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect(budget.contains(inside.pid!)).toBe(true);
      expect(budget.contains(outside.pid!)).toBe(false);
      const { expected } = expectedProcesses({ rootPids: [inside.pid!], payloadToken: token });
      const report = checkMembership(budget, expected);
      expect(report.outside.map((m) => m.pid)).toEqual([outside.pid]);
      expect(budget.procs()).toContain(inside.pid);
    } finally {
      outside.kill('SIGKILL');
      const exited = waitExit(inside);
      await budget.destroy();
      expect((await exited).signal).toBe('SIGKILL');
    }
  });

  it('counts an OOM kill and samples the peak', async () => {
    const budget = CgroupBudget.create({ runId, label: 'oom', cpus: '0-1', memoryMiB: 48 });
    try {
      const sampler = startPeakSampler(budget);
      const { enterArgv } = budget.placement();
      // 200 MiB of touched bytes cannot fit in 48 MiB with zero swap: the kernel must OOM-kill it.
      const child = spawn(enterArgv[0]!, [...enterArgv.slice(1), 'python3', '-c', 'b = bytearray(200 * 1024 * 1024); print(len(b))'], { stdio: 'ignore' });
      const { signal } = await waitExit(child);
      const peak = sampler.stop();
      expect(signal).toBe('SIGKILL');
      expect(budget.oomKillCount()).toBeGreaterThanOrEqual(1);
      expect(peak.peakBytes).toBeGreaterThan(40 * 1024 * 1024);
      expect(peak.peakBytes).toBeLessThanOrEqual(48 * 1024 * 1024);
    } finally {
      await budget.destroy();
    }
  });
});

describe.skipIf(!v1)('leftover budgets (sandbench clean)', () => {
  it('finds a budget left by a killed run and removes it with its processes', async () => {
    const { leftoverBudgets, removeBudget } = await import('../../harness/controls/leftover-budgets.ts');
    const budget = CgroupBudget.create({ runId: `${runId}x`, label: 'left', cpus: '0-1', memoryMiB: 64 });
    const { enterArgv } = budget.placement();
    const child = spawn(enterArgv[0]!, [...enterArgv.slice(1), 'sleep', '30'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 200));
    expect(leftoverBudgets(`${runId}x`)).toEqual([budget.name]);
    const exited = waitExit(child);
    await removeBudget(budget.name);
    expect((await exited).signal).toBe('SIGKILL');
    expect(leftoverBudgets(`${runId}x`)).toEqual([]);
    await expect(removeBudget('user-slice')).rejects.toThrow(/not a sandbench budget/);
  });
});
