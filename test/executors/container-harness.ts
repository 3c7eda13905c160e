/**
 * The container-specific cases the podman and docker executor tests share (the generic contract is
 * test/conformance), plus a loopback listener and cgroup cleanup for them.
 */
import { existsSync, readFileSync, readdirSync, rmdirSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { containersOfRun, removeContainer, type ContainerExecutor } from '../../executors/container-common.ts';
import { makeTrial, runOne as runTrial, sh, waitForLine as waitFor, type TestRun } from '../support/trial-fixture.ts';
import type { RunningTrial } from '../../harness/contracts/executor.ts';

const waitForLine = (running: RunningTrial, pattern: RegExp) => waitFor(running, (text) => pattern.test(text));

export async function listen(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, connections: () => count };
}

/** Remove budget cgroup directories runtimes created in controllers the budget does not own (pids, blkio...). */
export function removeCgroupEverywhere(relPath: string): void {
  const removeTree = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeTree(join(dir, entry.name));
    try {
      rmdirSync(dir);
    } catch {
      // busy or already gone: the budget owner reports it
    }
  };
  for (const hierarchy of readdirSync('/sys/fs/cgroup')) removeTree(join('/sys/fs/cgroup', hierarchy, relPath));
}

/**
 * Container-specific cases both engines must pass. `getExecutor`/`getRun` are read lazily because
 * prepare() runs in the caller's beforeAll.
 */
export function containerCases(getExecutor: () => ContainerExecutor, getRun: () => TestRun): void {
  it('prints the markers with host timing, exit 0, under runc-compatible rlimits', async () => {
    const outcome = await runTrial(getExecutor(), makeTrial(getRun()), sh('echo REFERENCE_READY; echo REFERENCE_RESULT "{\\"nofile\\":$(ulimit -n)}"'));
    expect(outcome.exit).toMatchObject({ exitCode: 0, timedOut: false });
    expect(outcome.exit.infraFailure).toBeUndefined();
    expect(outcome.stdout).toEqual(['REFERENCE_READY', 'REFERENCE_RESULT {"nofile":1024}']);
    const ready = outcome.running.lines.find((line) => line.text === 'REFERENCE_READY')!;
    expect(ready.tNs).toBeGreaterThan(outcome.running.tSpawnNs);
    expect(outcome.exit.tExitNs).toBeGreaterThanOrEqual(ready.tNs);
  });

  it('propagates a non-zero exit code and captures stderr', async () => {
    const outcome = await runTrial(getExecutor(), makeTrial(getRun()), sh('echo oops >&2; exit 7'));
    expect(outcome.exit.exitCode).toBe(7);
    expect(outcome.exit.infraFailure).toBeUndefined();
    expect(outcome.stderr).toContain('oops');
  });

  it('a missing command exits non-zero promptly (the task failed, not the engine)', async () => {
    const outcome = await runTrial(getExecutor(), makeTrial(getRun()), { argv: ['/no/such/binary'], env: {}, stdin: 'none' });
    expect(outcome.exit.exitCode).toBe(127);
    expect(outcome.exit.timedOut).toBe(false);
    expect(outcome.exit.infraFailure).toBeUndefined();
  });

  it('an engine refusal (impossible cpuset) is a setup failure, not a task failure', async () => {
    const outcome = await runTrial(getExecutor(), makeTrial(getRun(), { controls: { cpus: '63', memoryMiB: null } }), sh('echo REFERENCE_READY'));
    expect(outcome.exit.exitCode).toBe(125);
    expect(outcome.exit.infraFailure).toMatchObject({ category: 'setup_failed' });
    expect(outcome.exit.infraFailure?.reason).toMatch(/cpuset|cpus/i);
  });

  it('delivers stdin (barrier GO) to the task', async () => {
    const outcome = await runTrial(getExecutor(), makeTrial(getRun()), sh('echo PVISOR_DENSITY_READY {}; read word; echo "got:$word"', 'pipe'), async (running) => {
      await waitForLine(running, /^PVISOR_DENSITY_READY/);
      running.writeStdin('GO\n');
      running.closeStdin();
    });
    expect(outcome.exit.exitCode).toBe(0);
    expect(outcome.stdout).toContain('got:GO');
  });

  it('collects candidate files from the per-trial copy and writes through to it (no staging claim)', async () => {
    const test = getRun();
    const outcome = await runTrial(getExecutor(), makeTrial(test), sh('echo new > new.txt && echo changed > a.txt && rm sub/b.txt && echo REFERENCE_READY'));
    expect(outcome.exit.exitCode).toBe(0);
    expect(outcome.binding.claimsStaging).toBe(false);
    expect(outcome.binding.hostPath).not.toBe(test.baseline);
    expect(outcome.candidates.changed).toEqual(['a.txt', 'new.txt', 'sub/b.txt (deleted)']);
    expect(readFileSync(join(outcome.binding.hostPath, 'a.txt'), 'utf8')).toBe('changed\n');
    expect((await outcome.candidates.read('new.txt'))?.toString()).toBe('new\n');
    // The baseline itself is never bind-mounted.
    expect(readFileSync(join(test.baseline, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(test.baseline, 'sub', 'b.txt'))).toBe(true);
  });

  it('has no network: a TCP connect to a host loopback listener fails from inside', async () => {
    const { server, port, connections } = await listen();
    try {
      const probe = `import socket,sys\ntry:\n  socket.create_connection(("127.0.0.1", ${port}), timeout=3)\n  print("CONNECTED")\nexcept OSError as e:\n  print("CONNECT_FAILED", e)`;
      const outcome = await runTrial(getExecutor(), makeTrial(getRun()), { argv: ['python3', '-c', probe], env: {}, stdin: 'none' });
      expect(outcome.exit.exitCode).toBe(0);
      expect(outcome.stdout.join('\n')).toMatch(/^CONNECT_FAILED/);
      expect(connections()).toBe(0);
    } finally {
      server.close();
    }
  });

  it('applies cpuset and memory controls to the container cgroup', async () => {
    const script = 'cat /sys/fs/cgroup/cpuset/cpuset.cpus /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes';
    const outcome = await runTrial(getExecutor(), makeTrial(getRun(), { controls: { cpus: '1', memoryMiB: 96 } }), sh(script));
    expect(outcome.exit.exitCode).toBe(0);
    expect(outcome.stdout).toEqual(['1', String(96 * 1024 * 1024), String(96 * 1024 * 1024)]);
  });

  it('an OOM-killed container leaves nothing in the harness\'s working directory (conmon writes `oom` into its own cwd)', async () => {
    const started = Date.now();
    const strayOom = () => {
      const path = join(process.cwd(), 'oom');
      return existsSync(path) && statSync(path).mtimeMs >= started - 1000;
    };
    const outcome = await runTrial(getExecutor(), makeTrial(getRun(), { controls: { cpus: null, memoryMiB: 64 } }), sh("python3 -c \"x = b'a' * (256 << 20)\""));
    expect(outcome.exit.exitCode).not.toBe(0);
    expect(strayOom()).toBe(false);
  });

  it('a timeout kills the client and leaves no container of the run', async () => {
    const executor = getExecutor();
    const test = getRun();
    const trial = makeTrial(test, { timeoutMs: 4_000 });
    await executor.stageWorkspace(trial);
    const started = Date.now();
    const running = await executor.launch(trial, sh('echo REFERENCE_READY; sleep 120'));
    const exit = await running.exit;
    expect(exit.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(30_000);
    // Gone when the exit resolves, before finishTrial's safety removal.
    expect(await containersOfRun(executor.engine()!, test.run.runId)).toEqual([]);
    await executor.finishTrial(trial);
  });

  it('kill() during container startup leaves no container of the run', async () => {
    const executor = getExecutor();
    const test = getRun();
    for (const delayMs of [0, 150]) {
      const trial = makeTrial(test);
      await executor.stageWorkspace(trial);
      const running = await executor.launch(trial, sh('echo REFERENCE_READY; sleep 120'));
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await running.kill('test');
      expect(await containersOfRun(executor.engine()!, test.run.runId)).toEqual([]);
      await executor.finishTrial(trial);
    }
  });

  it('a container removed from outside mid-trial ends the trial promptly', async () => {
    const executor = getExecutor();
    const test = getRun();
    const trial = makeTrial(test);
    let removedAt = 0;
    const outcome = await runTrial(executor, trial, sh('echo REFERENCE_READY; sleep 120'), async (running) => {
      await waitForLine(running, /^REFERENCE_READY$/);
      const name = executor.containerNameOf(trial);
      expect(name).toMatch(new RegExp(`^sandbench-${test.run.runId}-${trial.trialId}-[0-9a-f]{6}$`));
      await removeContainer(executor.engine()!, name!);
      removedAt = Date.now();
    });
    expect(Date.now() - removedAt).toBeLessThan(15_000);
    expect(outcome.exit.timedOut).toBe(false);
    expect(outcome.exit.exitCode).not.toBe(0);
  });

  it('places the container under the budget via --cgroup-parent and reports its supervisor pid', async () => {
    const executor = getExecutor();
    const test = getRun();
    const budget = CgroupBudget.create({ runId: test.run.runId, label: `${executor.backend}-budget`, cpus: '0-1', memoryMiB: 512, cleanup: test.run.cleanup });
    const placement = budget.placement();
    try {
      const trial = makeTrial(test, { budget: placement });
      let pids: Awaited<ReturnType<ContainerExecutor['containerPids']>> | null = null;
      let initInside: boolean | null = null;
      let supervisorInside: boolean | null = null;
      const outcome = await runTrial(executor, trial, sh('echo REFERENCE_READY; read go; grep memory /proc/self/cgroup', 'pipe'), async (running) => {
        await waitForLine(running, /^REFERENCE_READY$/);
        pids = await executor.containerPids(trial);
        initInside = pids.init === null ? null : budget.contains(pids.init);
        supervisorInside = pids.supervisor === null ? null : budget.contains(pids.supervisor);
        running.writeStdin('GO\n');
        running.closeStdin();
      });
      expect(outcome.exit.exitCode).toBe(0);
      expect(outcome.stdout.join('\n')).toContain(placement.cgroupParent);
      expect(pids!.init).not.toBeNull();
      expect(initInside).toBe(true);
      expect(pids!.supervisor).not.toBeNull();
      expect(pids!.supervisorKind).toBe(executor.backend === 'podman' ? 'conmon' : 'containerd-shim');
      // Published finding: conmon lands in <budget>/conmon, the containerd shim stays outside.
      expect(supervisorInside).toBe(executor.backend === 'podman');
    } finally {
      await budget.destroy();
      removeCgroupEverywhere(placement.cgroupParent);
    }
  });
}
