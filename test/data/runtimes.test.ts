/**
 * data/runtimes/: the OCI runtime wrappers arms name as build.runtime, run for real.
 * - runsc-podman.sh under a density budget named after a podman:runsc cell: runsc 20221219 parses
 *   /proc/self/cgroup by splitting on ':', so a budget path holding one made every worker exit 126
 *   ("invalid cgroups file").
 * - runsc-docker.sh under sandbench's private dockerd, whose TMPDIR (under $HOME, mode 0700) runsc's
 *   sandbox could not open as nobody ("cannot read client sync file").
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa, execaSync } from 'execa';
import { describe, expect, it } from 'vitest';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { detectCgroupLayout } from '../../harness/controls/cgroup-layout.ts';
import { leftoverBudgets } from '../../harness/controls/leftover-budgets.ts';
import { createDockerExecutor } from '../../executors/docker.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { makeTrial, runOne, sh, usePreparedExecutor } from '../support/trial-fixture.ts';

const RUNSC_PODMAN = join(PROJECT_ROOT, 'data', 'runtimes', 'runsc-podman.sh');
const RUNSC_DOCKER = join(PROJECT_ROOT, 'data', 'runtimes', 'runsc-docker.sh');
const v1 = (() => {
  try {
    return detectCgroupLayout().version === 1 && process.getuid?.() === 0;
  } catch {
    return false;
  }
})();
const ready = v1 && existsSync('/usr/bin/runsc') && existsSync('/bin/busybox') && execaSync('podman', ['--version'], { reject: false }).exitCode === 0;
const runId = `rt${process.pid}`;

describe.skipIf(!ready)('runsc-podman.sh', () => {
  it('starts a container under a --cgroup-parent budget named after a podman:runsc cell', async () => {
    const root = tempDir('sandbench-runsc-root-');
    mkdirSync(join(root, 'bin'));
    copyFileSync('/bin/busybox', join(root, 'bin', 'busybox'));
    const budget = CgroupBudget.create({ runId, label: 'b0000-podman:runsc-useful-n2', cpus: '0-1', memoryMiB: 512 });
    try {
      expect(budget.name).toBe(`sandbench-${runId}-b0000-podman+runsc-useful-n2`);
      const args = ['--cgroup-manager', 'cgroupfs', 'run', '--rm', '--network', 'none', '--runtime', RUNSC_PODMAN, '--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096'];
      const run = await execa('podman', [...args, '--cgroup-parent', budget.placement().cgroupParent, '--read-only', '--rootfs', root, '/bin/busybox', 'echo', 'inside'], { reject: false, timeout: 60_000 });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('inside');
      expect(run.exitCode).toBe(0);
    } finally {
      await budget.destroy();
    }
    expect(leftoverBudgets(runId)).toEqual([]);
  }, 90_000);
});

const dockerReady = existsSync('/usr/bin/runsc') && (await createDockerExecutor().probe()).available;

describe.skipIf(!dockerReady)('runsc-docker.sh', () => {
  const prepared = usePreparedExecutor('rsdk', () => createDockerExecutor('runsc', { build: { runtime: RUNSC_DOCKER } }));

  it('runs a trial in gVisor under the private dockerd: the marker, the exit code, no network', async () => {
    const out = await runOne(prepared.executor, makeTrial(prepared.test), sh('echo REFERENCE_READY; dmesg | head -1; python3 -c "import socket; socket.create_connection((\'127.0.0.1\', 22), timeout=2)" 2>/dev/null && echo NET || echo NONET; exit 5'));
    expect(out.exit.infraFailure).toBeUndefined();
    expect(out.stdout[0]).toBe('REFERENCE_READY');
    // gVisor's own kernel log, not the host's: the task ran in the sentry.
    expect(out.stdout[1]).toMatch(/gVisor/);
    expect(out.stdout).toContain('NONET');
    expect(out.exit.exitCode).toBe(5);
  }, 120_000);
});
