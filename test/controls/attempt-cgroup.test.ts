/**
 * A sandbox's own cgroup inside a budget (issue 30): its kernel peak is read once at the end, so a
 * sandbox shorter than the old 500 ms PSS interval still gets its figure; a podman container's
 * conmon and init tree are charged to it although the client that launched them is outside; every
 * figure equals a direct read of the same kernel file. Real cgroups (v1 here) and real podman; the
 * v2 paths against a directory laid out like /sys/fs/cgroup.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AttemptCgroup } from '../../harness/controls/attempt-cgroup.ts';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { nodeCgroupIo, type CgroupIo } from '../../harness/controls/cgroup-io.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { cgroupPeakMemory } from '../../harness/controls/memory-method.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { createHostExecutor } from '../../executors/host.ts';
import { createPodmanExecutor } from '../../executors/podman.ts';
import { hostBackend } from '../../executors/backends/host.ts';
import { podmanBackend } from '../../executors/backends/podman.ts';
import { startSandboxPss } from '../../experiments/rollout/sandbox-pss.ts';
import { makeTrial, runOne, usePreparedExecutor } from '../support/trial-fixture.ts';

const layout = (() => {
  try {
    return detectCgroupLayout();
  } catch {
    return null;
  }
})();
const v1 = layout?.version === 1 && process.getuid?.() === 0;
const MiB = 1024 * 1024;
/** gVisor's runsc as podman's runtime: a wrapper adding --network=none and --host-uds=open (docs/backends.md, Recipes). */
const RUNSC_WRAPPER = resolve(import.meta.dirname, '../../data/runtimes/runsc-podman.sh');
/** Allocate and touch `mib` MiB, then exit at once: a sandbox far shorter than a 500 ms sampling interval. */
const allocate = (mib: number) => ({ argv: ['python3', '-c', `b = bytearray(${mib} * 1024 * 1024); print('REFERENCE_READY', len(b))`], env: {}, stdin: 'none' as const });

async function withBudget<T>(label: string, body: (budget: CgroupBudget) => Promise<T>): Promise<T> {
  const cleanup = new CleanupRegistry(`acg${process.pid}`);
  const budget = CgroupBudget.create({ runId: `acg${process.pid}`, label, cpus: '0-1', memoryMiB: 1024, cleanup });
  try {
    return await body(budget);
  } finally {
    await cleanup.releaseAll();
  }
}

describe.skipIf(!v1)('attempt cgroup (cgroup v1, real)', () => {
  const host = usePreparedExecutor('acgh', () => createHostExecutor());
  const podman = usePreparedExecutor('acgp', () => createPodmanExecutor());

  it('a sandbox shorter than 500 ms gets its peak, equal to a direct read of the same file', async () => {
    await withBudget('short', async (budget) => {
      const cgroup = AttemptCgroup.create(budget, 'a0');
      const trial = makeTrial(host.test, { budget: cgroup.placement() });
      const outcome = await runOne(host.executor, trial, allocate(48));
      const lifetimeMs = Number(outcome.exit.tExitNs - outcome.running.tSpawnNs) / 1e6;
      expect(outcome.exit.exitCode).toBe(0);
      expect(lifetimeMs).toBeLessThan(500);
      const peak = cgroup.peak();
      expect(peak.bytes).toBeGreaterThanOrEqual(48 * MiB);
      expect(peak.bytes).toBe(Number(readFileSync(peak.file, 'utf8').trim()));
      expect(peak.file).toBe(join(layout!.version === 1 ? layout!.mounts.memory : '', budget.relPath, 'a0', 'memory.max_usage_in_bytes'));
      const memory = cgroupPeakMemory(hostBackend.traits, peak);
      expect(memory).toMatchObject({ method: 'cgroup-peak', bytes: peak.bytes });
      await cgroup.destroy();
      expect(existsSync(join(layout!.version === 1 ? layout!.mounts.memory : '', budget.relPath, 'a0'))).toBe(false);
    });
  }, 120_000);

  it('a podman sandbox: the cgroup peak holds the container (the client alone, all the old walk saw, is less)', async () => {
    await withBudget('podman', async (budget) => {
      const cgroup = AttemptCgroup.create(budget, 'a0');
      const trial = makeTrial(podman.test, { budget: cgroup.placement() });
      let clientPss: number | null = null;
      // 192 MiB: well above the client tree the old walk saw. The podman client alone is ≈ 35 MB of
      // PSS, but a 50 ms sample can also catch runc or conmon's cleanup podman in its tree (72.8 MB
      // once in CI, above a 64 MiB container's 72.4 MB peak).
      const outcome = await runOne(podman.executor, trial, { ...allocate(192), argv: ['python3', '-c', "b = bytearray(192 * 1024 * 1024); import time; print('REFERENCE_READY', flush=True); time.sleep(1.2)"] }, async (running) => {
        // The old per-attempt figure: the launched tree's PSS, sampled (here every 50 ms, finer than the old 500 ms).
        const pss = startSandboxPss({ launched: () => running.rootPids(), marker: null, budgetDir: null }, 50);
        await running.exit;
        clientPss = (pss.stop().peakKiB ?? 0) * 1024;
      });
      expect(outcome.exit.exitCode).toBe(0);
      const peak = cgroup.peak();
      expect(peak.bytes).toBe(Number(readFileSync(peak.file, 'utf8').trim()));
      expect(peak.bytes).toBeGreaterThanOrEqual(192 * MiB);
      expect(clientPss).not.toBeNull();
      expect(peak.bytes!, `cgroup peak ${peak.bytes} vs client PSS ${clientPss}`).toBeGreaterThan(clientPss!);
      expect(cgroupPeakMemory(podmanBackend.traits, peak).method).toBe('cgroup-peak');
      await cgroup.destroy();
    });
  }, 180_000);

  it.skipIf(!existsSync('/usr/bin/runsc'))('podman with gVisor (runsc): the sentry and gofer are charged to the attempt cgroup, and so is what the task allocates', async () => {
    const runsc = createPodmanExecutor(null, { runtime: RUNSC_WRAPPER });
    expect((await runsc.probe()).details.start_check).toBe('a container started with this runtime');
    await runsc.prepare(podman.test.run);
    try {
      await withBudget('runsc', async (budget) => {
        const cgroup = AttemptCgroup.create(budget, 'a0');
        const trial = makeTrial(podman.test, { budget: cgroup.placement() });
        let members: string[] = [];
        const outcome = await runOne(runsc, trial, { ...allocate(64), argv: ['python3', '-c', "b = bytearray(64 * 1024 * 1024); import time; print('REFERENCE_READY', flush=True); time.sleep(1.2)"] }, async (running) => {
          await new Promise<void>((resolve) => running.onLine((line) => line.text.startsWith('REFERENCE_READY') && resolve()));
          members = cgroup.procs().map((pid) => { try { return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 2).join(' '); } catch { return ''; } });
        });
        expect(outcome.exit.exitCode).toBe(0);
        // runsc's own processes (the sandbox's sentry, the gofer) are members, not only conmon.
        expect(members.filter((cmd) => /runsc-sandbox|runsc-gofer|runsc /.test(cmd)).length, members.join('\n')).toBeGreaterThanOrEqual(2);
        const peak = cgroup.peak();
        expect(peak.bytes).toBe(Number(readFileSync(peak.file, 'utf8').trim()));
        expect(peak.bytes).toBeGreaterThanOrEqual(64 * MiB);
        await cgroup.destroy();
      });
    } finally {
      await runsc.teardown();
    }
  }, 180_000);

  it('an attempt cpuset takes the budget\'s CPUs from the kernel at mkdir, and is written only when the budget lacks clone_children', async () => {
    const writes: string[] = [];
    const io: CgroupIo = { ...nodeCgroupIo, write: (path, value) => (writes.push(path), nodeCgroupIo.write(path, value)) };
    const cleanup = new CleanupRegistry(`acgc${process.pid}`);
    const budget = CgroupBudget.create({ runId: `acgc${process.pid}`, label: 'clone', cpus: '1', memoryMiB: 256, cleanup, io });
    try {
      const cpusetDir = budget.site().dirs.cpuset;
      const cloned = AttemptCgroup.create(budget, 'a0');
      expect(readFileSync(join(cpusetDir, 'a0', 'cpuset.cpus'), 'utf8').trim()).toBe('1');
      expect(readFileSync(join(cpusetDir, 'a0', 'cpuset.mems'), 'utf8').trim()).toBe(readFileSync(join(cpusetDir, 'cpuset.mems'), 'utf8').trim());
      expect(writes.filter((path) => path.startsWith(join(cpusetDir, 'a0')))).toEqual([]);
      // A budget whose children are not cloned: the attempt writes both, and gets the same.
      nodeCgroupIo.write(join(cpusetDir, 'cgroup.clone_children'), '0');
      const written = AttemptCgroup.create(budget, 'a1');
      expect(writes.filter((path) => path.startsWith(join(cpusetDir, 'a1')))).toEqual([join(cpusetDir, 'a1', 'cpuset.cpus'), join(cpusetDir, 'a1', 'cpuset.mems')]);
      expect(readFileSync(join(cpusetDir, 'a1', 'cpuset.cpus'), 'utf8').trim()).toBe('1');
      await cloned.destroy();
      await written.destroy();
    } finally {
      await cleanup.releaseAll();
    }
  });

  it('destroy removes an emptied cgroup with one rmdir per hierarchy, and kills a task still inside first', async () => {
    const rmdirs: string[] = [];
    const listed: string[] = [];
    const io: CgroupIo = { ...nodeCgroupIo, rmdir: (path) => (rmdirs.push(path), nodeCgroupIo.rmdir(path)), subdirs: (path) => (listed.push(path), nodeCgroupIo.subdirs(path)) };
    const cleanup = new CleanupRegistry(`acgd${process.pid}`);
    const budget = CgroupBudget.create({ runId: `acgd${process.pid}`, label: 'destroy', cpus: '0-1', memoryMiB: 256, cleanup, io });
    try {
      const parents = [...new Set(Object.values(budget.site().dirs))];
      const made = (name: string) => parents.map((parent) => join(parent, name)).filter((dir) => existsSync(dir));
      // A cgroup whose processes all exited: the removal alone, nothing read or listed.
      const emptied = AttemptCgroup.create(budget, 'a0');
      const emptiedDirs = made('a0');
      rmdirs.length = 0;
      await emptied.destroy();
      expect(emptiedDirs.every((dir) => rmdirs.includes(dir) && !existsSync(dir))).toBe(true);
      expect(listed).toEqual([]);
      // A task still inside: the kernel refuses the rmdir (EBUSY), so destroy kills it, then removes.
      const live = AttemptCgroup.create(budget, 'a1');
      const liveDirs = made('a1');
      const [shell, ...args] = live.placement().enterArgv;
      const sleeper = spawn(shell!, [...args, 'sleep', '600'], { stdio: 'ignore' });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => sleeper.once('exit', (_code, signal) => resolve(signal)));
      for (let i = 0; i < 200 && !live.procs().includes(sleeper.pid!); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(live.procs()).toContain(sleeper.pid);
      await live.destroy();
      expect(await exited).toBe('SIGKILL');
      for (const dir of liveDirs) expect(existsSync(dir), dir).toBe(false);
    } finally {
      await cleanup.releaseAll();
    }
  }, 60_000);

  it('an empty cgroup is no measurement: the backend did not start the sandbox in it', async () => {
    await withBudget('empty', async (budget) => {
      const cgroup = AttemptCgroup.create(budget, 'a0');
      const memory = cgroupPeakMemory(hostBackend.traits, cgroup.peak());
      expect(memory.method).toBe('none');
      expect(memory.covers).toMatch(/nothing was charged/);
      await cgroup.destroy();
    });
  });
});

describe('attempt cgroup (cgroup v2 paths)', () => {
  it('enables the controllers in the budget, enters the child, reads memory.peak', async () => {
    const root = mkdtempSync(join(tmpdir(), 'sandbench-acg-v2-'));
    try {
      writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
      writeFileSync(join(root, 'cgroup.subtree_control'), 'cpu cpuset memory\n');
      writeFileSync(join(root, 'cpuset.cpus.effective'), '0-3\n');
      writeFileSync(join(root, 'cpuset.mems.effective'), '0\n');
      const io: CgroupIo = {
        ...nodeCgroupIo,
        mkdir(path) {
          mkdirSync(path);
          for (const file of ['cgroup.procs', 'cgroup.subtree_control', 'cpuset.cpus', 'cpuset.mems', 'cpu.max', 'memory.max', 'memory.swap.max', 'memory.current', 'memory.peak', 'memory.events']) writeFileSync(join(path, file), '');
        },
        rmdir: (path) => rmSync(path, { recursive: true }),
      };
      const budget = CgroupBudget.create({ runId: 'v2', label: 'b', cpus: '0-1', memoryMiB: 64, layout: { version: 2, mount: root }, io });
      const cgroup = AttemptCgroup.create(budget, 'a3');
      expect(readFileSync(join(root, budget.name, 'cgroup.subtree_control'), 'utf8')).toBe('+cpu +cpuset +memory');
      const placement = cgroup.placement();
      expect(placement.cgroupParent).toBe(`/${budget.name}/a3`);
      expect(placement.enterArgv[2]).toContain(`echo $$ > '${join(root, budget.name, 'a3', 'cgroup.procs')}'`);
      writeFileSync(join(root, budget.name, 'a3', 'memory.peak'), '12345\n');
      expect(cgroup.peak()).toEqual({ bytes: 12345, file: join(root, budget.name, 'a3', 'memory.peak') });
      await cgroup.destroy();
      expect(existsSync(join(root, budget.name, 'a3'))).toBe(false);
      await budget.destroy();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
