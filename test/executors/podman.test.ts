/** The podman executor against real Podman (runc, cgroup v1 hybrid here): container-specific behaviour. */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { clientArgv, containerName, containersOfRun, containerRunArgv, removeContainer, taskImageTag, IMAGE_LABEL } from '../../executors/container-common.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { createPodmanExecutor } from '../../executors/podman.ts';
import { containerCases } from './container-harness.ts';
import { usePreparedExecutor } from '../support/trial-fixture.ts';

const probe = await createPodmanExecutor().probe();

/** A process's state letter from /proc/<pid>/stat (after the parenthesized comm), or 'gone'. */
function processState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return 'gone';
  }
}

describe.skipIf(!probe.available)('podman executor', () => {
  const prepared = usePreparedExecutor('pod', createPodmanExecutor, { checkCleanup: true });

  it('probe records podman, runc, conmon and the cgroup mode', () => {
    expect(probe.version).toMatch(/^podman \d+\.\d+/);
    expect(probe.details.runc).toMatch(/^runc version/);
    expect(probe.details.conmon).toMatch(/conmon version/);
    expect(probe.details.cgroup_mode).toMatch(/^(v2|v1-hybrid|v1)$/);
    expect(probe.details.rlimits).toContain('--ulimit nofile=1024:1024');
  });

  it('imports the task image once, tagged and labelled by digest', async () => {
    const tag = taskImageTag(prepared.test.run.image.digest);
    const inspect = await execa('podman', ['image', 'inspect', '--format', `{{index .RootFS.Layers 0}} {{index .Labels "${IMAGE_LABEL}"}}`, tag]);
    expect(inspect.stdout.trim()).toBe(`${prepared.test.run.image.digest} 1`);
    // A second prepare finds the same digest and does not import again (the image id stays).
    const before = (await execa('podman', ['image', 'inspect', '--format', '{{.Id}}', tag])).stdout;
    const again = createPodmanExecutor();
    await again.prepare(prepared.test.run);
    expect((await execa('podman', ['image', 'inspect', '--format', '{{.Id}}', tag])).stdout).toBe(before);
    expect(again.imageFacts()).toEqual({ image_tag: tag, image_id: before.trim(), layer_digest: prepared.test.run.image.digest });
    await again.teardown();
  }, 120_000);

  it('builds the run argv with runc, no network, no pull, explicit rlimits and the cgroupfs manager for budgets', () => {
    const { globalArgs, runArgs } = containerRunArgv({
      kind: 'podman',
      name: 'sandbench-r-t-000000',
      runId: 'r',
      trialId: 't',
      imageTag: 'sandbench-task:abc',
      workspaceHostPath: '/w',
      task: { argv: ['true'], env: {}, stdin: 'none' },
      controls: { cpus: null, memoryMiB: null },
      budget: { enterArgv: [], cgroupParent: '/sandbench-r-b', cgroupVersion: 1, clients: 'outside' },
      conmonPidFile: '/trial/c.conmon.pid',
    });
    expect(globalArgs).toEqual(['--cgroup-manager', 'cgroupfs']);
    expect(runArgs.join(' ')).toContain('--conmon-pidfile /trial/c.conmon.pid');
    expect(runArgs.join(' ')).toContain('--runtime runc --ulimit nofile=1024:1024 --ulimit nproc=4096:4096');
    expect(runArgs.join(' ')).toContain('--network none --pull never');
    expect(runArgs.join(' ')).toContain('--cgroup-parent /sandbench-r-b');
    expect(runArgs).not.toContain('--interactive');
  });

  it('names containers sandbench-<run>-<trial>-<launch> so a re-run trial never collides with a leftover', () => {
    expect(containerName('r1', 'b0001-podman')).toMatch(/^sandbench-r1-b0001-podman-[0-9a-f]{6}$/);
    expect(containerName('r1', 'b0001-podman')).not.toBe(containerName('r1', 'b0001-podman'));
    expect(containerName('r:1', 't/1', 'abc')).toBe('sandbench-r-1-t-1-abc');
  });

  containerCases(() => prepared.executor, () => prepared.test);

  it('puts the client behind the budget enter prefix only when the budget takes clients inside', () => {
    const budget = { enterArgv: ['/bin/sh', '-c', 'enter', 'sandbench-enter'], cgroupParent: '/b', cgroupVersion: 1 as const };
    expect(clientArgv({ ...budget, clients: 'inside' }, ['podman', 'run'])).toEqual(['/bin/sh', '-c', 'enter', 'sandbench-enter', 'podman', 'run']);
    expect(clientArgv({ ...budget, clients: 'outside' }, ['podman', 'run'])).toEqual(['podman', 'run']);
    expect(clientArgv(null, ['podman', 'run'])).toEqual(['podman', 'run']);
  });

  /**
   * A stand-in conmon: a copy of sh named conmon, with `-n NAME` in its argv as podman passes it,
   * that exits 1.5 s later, longer than `podman rm` takes (`; true` keeps sh from exec-ing sleep, which would change its name).
   */
  async function standInConmon(runId: string) {
    const dir = tempDir('sandbench-conmon-');
    const fake = join(dir, 'conmon');
    copyFileSync('/bin/sh', fake);
    const name = containerName(runId, 't');
    const conmon = spawn(fake, ['-c', 'sleep 1.5; true', '-n', name], { stdio: 'ignore' });
    const exited = new Promise((resolve) => conmon.once('exit', resolve));
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { dir, name, pid: conmon.pid!, exited };
  }

  /** Removal of the (absent) container `name` returns only after the stand-in exited: `podman rm --ignore` succeeds at once, the wait is for the conmon. */
  async function expectRemovalWaitsFor(conmon: Awaited<ReturnType<typeof standInConmon>>, options: { conmonPidFile?: string } = {}) {
    const started = Date.now();
    await removeContainer(prepared.executor.engine()!, conmon.name, options);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    // It has exited by now: a zombie (Node may not have reaped it yet, so exitCode can still be null) or gone.
    expect(processState(conmon.pid)).toMatch(/^(Z|gone)$/);
    expect(await conmon.exited).toBe(0);
  }

  it('removal returns only once the container\'s conmon has exited (it may still run its exit command)', async () => {
    const conmon = await standInConmon('conmonwait');
    await expectRemovalWaitsFor(conmon);
    rmSync(conmon.dir, { recursive: true, force: true });
  });

  it('with conmon\'s pid file, removal waits on that process alone, and a pid file naming another process does not hold it', async () => {
    const conmon = await standInConmon('conmonpid');
    const pidFile = join(conmon.dir, `${conmon.name}.conmon.pid`);
    writeFileSync(pidFile, `${conmon.pid}\n`);
    await expectRemovalWaitsFor(conmon, { conmonPidFile: pidFile });
    // A reused pid (here the harness's own): not a conmon of this container, so nothing to wait for.
    writeFileSync(pidFile, `${process.pid}\n`);
    const started = Date.now();
    await removeContainer(prepared.executor.engine()!, conmon.name, { conmonPidFile: pidFile });
    expect(Date.now() - started).toBeLessThan(15_000);
    rmSync(conmon.dir, { recursive: true, force: true });
  });

  it('leaves no container of the run behind', async () => {
    expect(await containersOfRun(prepared.executor.engine()!, prepared.test.run.runId)).toEqual([]);
  });
});
