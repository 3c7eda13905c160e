/** The cgroup v2 path and value logic against a temporary directory laid out like /sys/fs/cgroup. */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BudgetError, CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { nodeCgroupIo, type CgroupIo } from '../../harness/controls/cgroup-io.ts';
import { detectCgroupLayout, separateCpuacct } from '../../harness/controls/cgroup-layout.ts';

let root: string;
const files = ['cgroup.procs', 'cpuset.cpus', 'cpuset.mems', 'cpu.max', 'memory.max', 'memory.swap.max', 'memory.current', 'memory.peak', 'memory.events'];
// A fake kernel: mkdir creates the interface files a real cgroup2 directory has.
const io: CgroupIo = {
  ...nodeCgroupIo,
  mkdir(path) {
    mkdirSync(path);
    for (const file of files) writeFileSync(join(path, file), file === 'memory.events' ? 'oom 0\noom_kill 3\n' : '');
  },
  rmdir: (path) => rmSync(path, { recursive: true }),
};

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sandbench-v2-'));
  writeFileSync(join(root, 'cgroup.controllers'), 'cpuset cpu io memory pids\n');
  writeFileSync(join(root, 'cgroup.subtree_control'), '');
  writeFileSync(join(root, 'cpuset.cpus.effective'), '0-3\n');
  writeFileSync(join(root, 'cpuset.mems.effective'), '0\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('cgroup v2 budget', () => {
  it('detects a pure v2 machine from its mounts', () => {
    const layout = detectCgroupLayout({ mounts: `cgroup2 ${root} cgroup2 rw,nosuid 0 0\n`, readFile: (p) => nodeCgroupIo.read(p) });
    expect(layout).toEqual({ version: 2, mount: root });
  });

  it('prefers v1 controllers on a hybrid machine', () => {
    const mounts = ['cgroup /c/memory cgroup rw,memory 0 0', 'cgroup /c/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0', 'cgroup /c/cpuset cgroup rw,cpuset 0 0', `cgroup2 ${root} cgroup2 rw 0 0`].join('\n');
    expect(detectCgroupLayout({ mounts, readFile: () => '' })).toEqual({ version: 1, mounts: { memory: '/c/memory', cpu: '/c/cpu,cpuacct', cpuset: '/c/cpuset' }, others: [root], cpuacct: '/c/cpu,cpuacct' });
  });

  it('names a cpuacct hierarchy mounted apart from cpu, and none when it is not mounted', () => {
    const budget = ['cgroup /c/memory cgroup rw,memory 0 0', 'cgroup /c/cpu cgroup rw,cpu 0 0', 'cgroup /c/cpuset cgroup rw,cpuset 0 0'];
    const apart = detectCgroupLayout({ mounts: [...budget, 'cgroup /c/cpuacct cgroup rw,cpuacct 0 0', 'cgroup /c/pids cgroup rw,pids 0 0'].join('\n'), readFile: () => '' });
    expect(apart).toMatchObject({ version: 1, others: ['/c/cpuacct', '/c/pids'], cpuacct: '/c/cpuacct' });
    expect(detectCgroupLayout({ mounts: budget.join('\n'), readFile: () => '' })).toMatchObject({ version: 1, cpuacct: null });
    // Only a cpuacct apart from cpu needs a dir of its own: co-mounted, the cpu dir counts the CPU.
    expect(separateCpuacct(apart)).toBe('/c/cpuacct');
    expect(separateCpuacct(detectCgroupLayout({ mounts: budget.join('\n'), readFile: () => '' }))).toBeNull();
    const together = ['cgroup /c/memory cgroup rw,memory 0 0', 'cgroup /c/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0', 'cgroup /c/cpuset cgroup rw,cpuset 0 0'].join('\n');
    expect(separateCpuacct(detectCgroupLayout({ mounts: together, readFile: () => '' }))).toBeNull();
  });

  it('writes memory.max, memory.swap.max=0, cpu.max for 2 CPUs and the cpuset, delegating controllers first', async () => {
    const budget = CgroupBudget.create({ runId: 'r1', label: 'b0', cpus: '0,1', memoryMiB: 2048, layout: { version: 2, mount: root }, io });
    const dir = join(root, 'sandbench-r1-b0');
    expect(readFileSync(join(root, 'cgroup.subtree_control'), 'utf8')).toBe('+cpu +cpuset +memory');
    expect(readFileSync(join(dir, 'memory.max'), 'utf8')).toBe(String(2 * 1024 ** 3));
    expect(readFileSync(join(dir, 'memory.swap.max'), 'utf8')).toBe('0');
    expect(readFileSync(join(dir, 'cpu.max'), 'utf8')).toBe('200000 100000');
    expect(readFileSync(join(dir, 'cpuset.cpus'), 'utf8')).toBe('0-1');
    expect(readFileSync(join(dir, 'cpuset.mems'), 'utf8')).toBe('0');
    expect(budget.placement()).toMatchObject({ cgroupParent: '/sandbench-r1-b0', cgroupVersion: 2 });
    expect(budget.placement().enterArgv[2]).toContain(`echo $$ > '${join(dir, 'cgroup.procs')}'`);
    expect(budget.oomKillCount()).toBe(3);
    await budget.destroy();
  });

  it('fails clearly when a limit does not stick', () => {
    const lossy: CgroupIo = { ...io, write: (path, value) => (path.endsWith('memory.max') ? undefined : nodeCgroupIo.write(path, value)) };
    expect(() => CgroupBudget.create({ runId: 'r1', label: 'b1', cpus: '0-1', memoryMiB: 2048, layout: { version: 2, mount: root }, io: lossy })).toThrow(
      /memory.max reads back "" after writing "2147483648"/,
    );
    expect(nodeCgroupIo.exists(join(root, 'sandbench-r1-b1'))).toBe(false);
  });

  it('refuses an existing budget directory', () => {
    mkdirSync(join(root, 'sandbench-r1-b2'));
    expect(() => CgroupBudget.create({ runId: 'r1', label: 'b2', cpus: '0-1', memoryMiB: 64, layout: { version: 2, mount: root }, io })).toThrow(BudgetError);
  });
});
