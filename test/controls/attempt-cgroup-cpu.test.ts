/**
 * An attempt cgroup's CPU time (issue 31, cost of a valid sample): the kernel's own count for every
 * process charged to it — a host tree, and a podman container whose client stays outside — equal
 * to a direct read of the same file, and at least the CPU the task was made to burn. Real cgroups
 * (v1 here: cpuacct is its own hierarchy, so the attempt gets a cpuacct child) and real podman; the
 * v2 path against a directory laid out like /sys/fs/cgroup.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AttemptCgroup } from '../../harness/controls/attempt-cgroup.ts';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { nodeCgroupIo, type CgroupIo } from '../../harness/controls/cgroup-io.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { createHostExecutor } from '../../executors/host.ts';
import { createPodmanExecutor } from '../../executors/podman.ts';
import { makeTrial, runOne, usePreparedExecutor } from '../support/trial-fixture.ts';

const layout = (() => {
  try {
    return detectCgroupLayout();
  } catch {
    return null;
  }
})();
const v1 = layout?.version === 1 && process.getuid?.() === 0;
/** Spin for `ms` of CPU time (process_time, not wall), then exit. */
const burn = (ms: number) => ({ argv: ['python3', '-c', `import time\nt = time.process_time()\nwhile time.process_time() - t < ${ms / 1000}: pass\nprint('REFERENCE_READY')`], env: {}, stdin: 'none' as const });

async function withBudget<T>(label: string, body: (budget: CgroupBudget) => Promise<T>): Promise<T> {
  const cleanup = new CleanupRegistry(`acc${process.pid}`);
  const budget = CgroupBudget.create({ runId: `acc${process.pid}`, label, cpus: '0-1', memoryMiB: 1024, cleanup });
  try {
    return await body(budget);
  } finally {
    await cleanup.releaseAll();
  }
}

describe.skipIf(!v1)('attempt cgroup CPU time (cgroup v1, real)', () => {
  const host = usePreparedExecutor('acch', () => createHostExecutor());
  const podman = usePreparedExecutor('accp', () => createPodmanExecutor());

  it('a host tree burning 300 ms of CPU: the cgroup counts at least that, from the file it names', async () => {
    await withBudget('host', async (budget) => {
      const cgroup = AttemptCgroup.create(budget, 'a0');
      expect(cgroup.cpuUsageNs()).toBe(0);
      const outcome = await runOne(host.executor, makeTrial(host.test, { budget: cgroup.placement() }), burn(300));
      expect(outcome.exit.exitCode).toBe(0);
      const ns = cgroup.cpuUsageNs()!;
      expect(ns).toBeGreaterThanOrEqual(300e6);
      // python's start-up and the enter shell add a little; a whole second more would be someone else's CPU.
      expect(ns).toBeLessThan(1_300e6);
      const accounting = layout!.version === 1 ? layout!.others.find((root) => existsSync(join(root, 'cpuacct.usage'))) : undefined;
      if (accounting) expect(ns).toBe(Number(readFileSync(join(accounting, budget.name, 'a0', 'cpuacct.usage'), 'utf8').trim()));
      await cgroup.destroy();
      if (accounting) expect(existsSync(join(accounting, budget.name, 'a0'))).toBe(false);
    });
  }, 120_000);

  it('a podman container (client outside the budget): its CPU is charged to the attempt cgroup', async () => {
    await withBudget('podman', async (budget) => {
      const cgroup = AttemptCgroup.create(budget, 'a0');
      const outcome = await runOne(podman.executor, makeTrial(podman.test, { budget: cgroup.placement() }), burn(400));
      expect(outcome.exit.exitCode).toBe(0);
      expect(cgroup.cpuUsageNs()!).toBeGreaterThanOrEqual(400e6);
      await cgroup.destroy();
    });
  }, 180_000);
});

describe('attempt cgroup CPU time (cgroup v2 paths)', () => {
  it('reads usage_usec of cpu.stat as ns', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sandbench-acc-v2-'));
    try {
      writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
      writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu cpuset memory\n');
      writeFileSync(join(root, 'cpuset.cpus.effective'), '0-3\n');
      writeFileSync(join(root, 'cpuset.mems.effective'), '0\n');
      const io: CgroupIo = {
        ...nodeCgroupIo,
        mkdir(path) {
          mkdirSync(path);
          for (const file of ['cgroup.procs', 'cgroup.subtree_control', 'cpuset.cpus', 'cpuset.mems', 'cpu.max', 'cpu.stat', 'memory.max', 'memory.swap.max', 'memory.current', 'memory.peak', 'memory.events']) writeFileSync(join(path, file), '');
        },
        rmdir: (path) => rmSync(path, { recursive: true }),
      };
      const budget = CgroupBudget.create({ runId: 'v2', label: 'c', cpus: '0-1', memoryMiB: 64, layout: { version: 2, mount: root }, io });
      const cgroup = AttemptCgroup.create(budget, 'a1');
      writeFileSync(join(root, budget.name, 'a1', 'cpu.stat'), 'usage_usec 250000\nuser_usec 200000\nsystem_usec 50000\n');
      expect(cgroup.cpuUsageNs()).toBe(250_000_000);
      await cgroup.destroy();
      await budget.destroy();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
