/**
 * Controls the launcher applies in the child before exec: the budget's cgroups (entered first) and
 * CPU affinity. Read back from the child's own /proc/<pid>/status and /proc/<pid>/cgroup, and from
 * the budget's cgroup.procs. Needs root and cgroup v1 or v2 budget controllers.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BudgetPlacement } from '../../harness/contracts/executor.ts';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { budgetProcsFiles } from '../../executors/launch/launch-controls.ts';
import { locateLauncher } from '../../executors/launch/launcher-binary.ts';
import { LauncherClient } from '../../executors/launch/launcher-client.ts';
import { spawnWithLauncher } from '../../executors/launch/launcher-spawn.ts';

const layout = (() => {
  try {
    return detectCgroupLayout();
  } catch {
    return null;
  }
})();
const canBudget = layout !== null && process.getuid?.() === 0;
const PATH = '/usr/bin:/bin';
const timing = { path: 'launcher' as const };

describe('launcher controls', () => {
  let client: LauncherClient;
  beforeAll(async () => {
    const binary = await locateLauncher();
    if (!binary.ok) throw new Error(binary.reason);
    client = await LauncherClient.start(binary.path);
  });
  afterAll(async () => client?.stop());

  it('pins the exec\'d program itself (no taskset): Cpus_allowed_list as the program starts', async () => {
    // `cat` is the exec'd process: what it prints is its own affinity from the first instruction.
    const running = spawnWithLauncher(client, { argv: ['cat', '/proc/self/status'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 10_000, controls: { cpus: '1', budget: null } }, timing);
    expect((await running.exit).exitCode).toBe(0);
    expect(running.lines.find((l) => l.text.startsWith('Cpus_allowed_list:'))?.text).toMatch(/^Cpus_allowed_list:\s+1$/);
  });

  it('refuses a bad CPU list as a setup failure, never running the task', async () => {
    const running = spawnWithLauncher(client, { argv: ['true'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 10_000, controls: { cpus: '0-x', budget: null } }, timing);
    const exit = await running.exit;
    expect(exit.infraFailure?.category).toBe('setup_failed');
    expect(exit.infraFailure?.reason).toMatch(/bad cpu list/);
  });

  it.skipIf(!canBudget)('enters every budget cgroup before exec, then pins inside it', async () => {
    const cleanup = new CleanupRegistry(`tl${process.pid}`);
    const budget = CgroupBudget.create({ runId: `tl${process.pid}`, label: 'launch', cpus: '0-1', memoryMiB: 256, cleanup });
    try {
      const placement = budget.placement();
      const files = budgetProcsFiles(placement);
      expect(files.length).toBe(layout!.version === 1 ? 3 : 1);
      const running = spawnWithLauncher(
        client,
        { argv: ['sh', '-c', 'cat /proc/self/cgroup; echo READY; exec sleep 30'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 30_000, controls: { cpus: '0', budget: placement } },
        timing,
      );
      await new Promise<void>((resolve) => running.onLine((line) => line.text === 'READY' && resolve()));
      const pid = running.rootPids()[0]!;
      // The shell (the exec'd program) printed its cgroups at its start: already inside on every controller.
      const printed = running.lines.map((l) => l.text);
      for (const controller of layout!.version === 1 ? ['memory', 'cpu', 'cpuset'] : ['']) {
        const line = printed.find((text) => (controller ? new RegExp(`^\\d+:([^:]*,)?${controller}(,[^:]*)?:`).test(text) : text.startsWith('0::')));
        expect(line, `cgroup line for ${controller || 'v2'}`).toMatch(new RegExp(`${placement.cgroupParent}$`));
      }
      expect(readFileSync(`/proc/${pid}/status`, 'utf8')).toMatch(/^Cpus_allowed_list:\s+0$/m);
      for (const file of files) expect(readFileSync(file, 'utf8').split('\n')).toContain(String(pid));
      await running.kill('test over');
      expect((await running.exit).signal).toBe('SIGTERM');
    } finally {
      await cleanup.releaseAll();
    }
  });

  it('fails the launch cleanly when a budget cgroup cannot be entered', async () => {
    const placement: BudgetPlacement = { enterArgv: [], cgroupParent: '/sandbench-no-such-budget', cgroupVersion: layout?.version ?? 2, clients: 'outside' };
    const running = spawnWithLauncher(client, { argv: ['true'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 10_000, controls: { cpus: null, budget: placement } }, timing);
    const exit = await running.exit;
    expect(exit.infraFailure?.category).toBe('setup_failed');
    expect(exit.infraFailure?.reason).toMatch(/cannot open .*sandbench-no-such-budget.*cgroup\.procs/);
  });
});
