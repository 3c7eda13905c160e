/**
 * The gvisor backend on the real runsc: skipped (with the probe's reason) only when runsc is not
 * installed, and failed then too when SANDBENCH_REQUIRE_BACKENDS names gvisor. Every test checks
 * what it leaves: no runsc container or state, no overlay mount, no cgroup, no sandbox process.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runscContainers } from '../../executors/backends/gvisor.ts';
import { createGvisorExecutor } from '../../executors/gvisor.ts';
import { ociConfig } from '../../executors/gvisor/oci-config.ts';
import { isMounted } from '../../executors/gvisor/overlay-mount.ts';
import { choosePlatform, containerName, globalFlags, listContainers, resolveBinary, runscRoot } from '../../executors/gvisor/runsc.ts';
import { createExecutor } from '../../executors/registry.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import type { ProbeResult, TrialContext } from '../../harness/contracts/executor.ts';
import { fileSha256 } from '../../harness/provenance/build-identity.ts';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { descendants, procCgroups } from '../../harness/controls/proc-tree.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { makeTestRun, makeTrial, runOne, sh, waitForLine, type TestRun } from '../support/trial-fixture.ts';

const required = (process.env.SANDBENCH_REQUIRE_BACKENDS ?? '').split(',').includes('gvisor');
const runsc = resolveBinary('runsc');
const executor = createGvisorExecutor();
const probe: ProbeResult = await executor.probe();

it('gvisor is available when required', () => {
  if (required) expect(probe.available, probe.reason).toBe(true);
  else expect(typeof probe.available).toBe('boolean');
});

describe('gvisor platform choice and bundle (no runsc needed)', () => {
  it('takes the variant, then SANDBENCH_GVISOR_PLATFORM, then ptrace', () => {
    expect(choosePlatform('kvm', { SANDBENCH_GVISOR_PLATFORM: 'systrap' })).toEqual({ platform: 'kvm', source: 'variant' });
    expect(choosePlatform(null, { SANDBENCH_GVISOR_PLATFORM: 'systrap' })).toEqual({ platform: 'systrap', source: 'env' });
    expect(choosePlatform(null, {})).toEqual({ platform: 'ptrace', source: 'default' });
  });

  it('refuses a platform the binary does not list, naming the ones it does', async () => {
    if (!runsc) return;
    const result = await createGvisorExecutor('no-such-platform').probe();
    expect(result.available).toBe(false);
    expect(result.reason).toMatch(/does not accept platform no-such-platform \(it lists: .*ptrace/);
  });

  it('writes a read-only root, the workspace bind, private /tmp and the extras', () => {
    const config = ociConfig({
      rootfsDir: '/img/rootfs',
      workspaceDir: '/t/merged',
      task: { argv: ['/bin/true'], env: { A: '1' }, stdin: 'none', mounts: [{ source: '/tools', target: '/run/sandbench/tools', contentKey: 'k' }], service: { name: 'model', socketPath: '/s.sock' } },
      controls: { cpus: null, memoryMiB: 64 },
      cgroupsPath: '/sandbench-r-t',
    }) as { root: unknown; mounts: { destination: string; options?: string[] }[]; process: { env: string[]; cwd: string }; linux: { resources: { memory: { limit: number } } } };
    expect(config.root).toEqual({ path: '/img/rootfs', readonly: true });
    expect(config.process.cwd).toBe('/workspace');
    expect(config.process.env).toEqual(expect.arrayContaining(['A=1', 'SANDBENCH_SERVICE_SOCKET=/run/sandbench/model.sock']));
    const byTarget = Object.fromEntries(config.mounts.map((m) => [m.destination, m]));
    expect(byTarget['/workspace']?.options).toContain('rw');
    expect(byTarget['/tmp']).toMatchObject({ type: 'tmpfs' });
    expect(byTarget['/run/sandbench/tools']?.options).toContain('ro');
    expect(byTarget['/run/sandbench/model.sock']).toMatchObject({ source: '/s.sock' });
    expect(config.linux.resources.memory.limit).toBe(64 * 1024 * 1024);
  });
});

describe.skipIf(!runsc && !required)(`gvisor executor on runsc${runsc ? '' : ` (skipped: ${probe.reason})`}`, () => {
  let test: TestRun;
  let listener: Server;
  let port = 0;

  /** Nothing of this trial is left: container, state, mount, cgroup, sandbox processes. */
  async function expectNothingLeft(trial: TrialContext): Promise<void> {
    const name = containerName(test.run.runId, trial.trialId);
    expect(await listContainers(runsc!, runscRoot(test.run.stateDir, test.run.runId))).not.toContain(name);
    expect(isMounted(join(trial.trialDir, 'merged'))).toBe(false);
    for (const controller of ['memory', 'cpu', 'pids']) {
      const dir = `/sys/fs/cgroup/${controller}`;
      if (existsSync(dir)) expect(readdirSync(dir).filter((entry) => entry === name)).toEqual([]);
    }
    const processes = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(trial.trialDir) && !line.includes('ps -eo'));
    expect(processes).toEqual([]);
  }

  beforeAll(async () => {
    expect(probe.available, probe.reason).toBe(true);
    test = await makeTestRun('gvisor');
    await executor.prepare(test.run);
    listener = createServer((socket) => socket.end('hello from host\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  }, 600_000);
  afterAll(async () => {
    listener?.close();
    await executor.teardown();
    if (test) expect(existsSync(runscRoot(test.run.stateDir, test.run.runId))).toBe(false);
    await test?.dispose();
  }, 120_000);

  it('records the platform, the runsc version and the binary sha256', () => {
    expect(probe.details.platform).toBe('ptrace');
    expect(probe.details.runsc_version).toMatch(/^runsc version /);
    expect(probe.details.runsc_sha256).toBe(`sha256:${fileSha256(runsc!)}`);
    expect(probe.details.platforms_accepted?.split(',')).toContain('ptrace');
  });

  it('is registered with its traits', () => {
    const registered = createExecutor('gvisor', null);
    expect(registered?.traits).toMatchObject({ launch: 'direct', networkIsolated: true, privateTmp: true, hostTraceable: false, memoryAccounting: 'process-tree' });
  });

  it('times the ready marker and propagates the exit code, inside gVisor', async () => {
    const trial = makeTrial(test);
    const out = await runOne(executor, trial, sh('echo REFERENCE_READY; dmesg 2>/dev/null | head -1; uname -r; exit 3'));
    expect(out.exit.exitCode).toBe(3);
    expect(out.exit.timedOut).toBe(false);
    const ready = out.running.lines.find((l) => l.text === 'REFERENCE_READY');
    expect(ready).toBeDefined();
    expect(ready!.tNs).toBeGreaterThan(out.running.tSpawnNs);
    // gVisor's sentry answers dmesg with its own boot banner, never the host kernel's log.
    expect(out.stdout.join('\n')).toMatch(/gVisor/i);
    expect(out.running.timing?.path).toBeDefined();
    await expectNothingLeft(trial);
  });

  it('stages the workspace: the baseline is unchanged while the task writes, and the upper is the candidates', async () => {
    const trial = makeTrial(test);
    const before = treeDigest(test.baseline);
    const out = await runOne(executor, trial, sh('cat a.txt; printf written > w.txt; echo more >> sub/b.txt; rm a.txt; mkdir newdir; echo n > newdir/f; test ! -e a.txt && echo removed'));
    expect(out.exit.exitCode).toBe(0);
    expect(out.stdout).toEqual(['hello', 'removed']);
    expect(out.binding).toEqual({ hostPath: test.baseline, claimsStaging: true });
    expect(treeDigest(test.baseline)).toBe(before);
    expect(readFileSync(join(test.baseline, 'a.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(test.baseline, 'w.txt'))).toBe(false);
    expect(out.candidates.changed).toEqual(['a.txt (deleted)', 'newdir', 'newdir/f', 'sub/b.txt', 'w.txt']);
    expect((await out.candidates.read('w.txt'))?.toString()).toBe('written');
    expect((await out.candidates.read('sub/b.txt'))?.toString()).toBe('nested\nmore\n');
    await expectNothingLeft(trial);
  });

  it('has no network: a TCP connect to a host loopback listener fails', async () => {
    const script = `python3 -c "import socket\ntry:\n  socket.create_connection(('127.0.0.1',${port}),timeout=3); print('CONNECTED')\nexcept OSError as e:\n  print('REFUSED', e)"`;
    const out = await runOne(executor, makeTrial(test), sh(script));
    expect(out.stdout.join('\n')).toContain('REFUSED');
    expect(out.stdout.join('\n')).not.toContain('CONNECTED');
  });

  it('a timeout kills the whole tree and leaves no container, state, mount or cgroup', async () => {
    const trial = makeTrial(test, { timeoutMs: 5_000, controls: { cpus: null, memoryMiB: 128 } });
    const started = Date.now();
    const out = await runOne(executor, trial, sh('echo REFERENCE_READY; sleep 600 & sleep 600; echo never'));
    expect(out.exit.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(out.stdout).not.toContain('never');
    await expectNothingLeft(trial);
  });

  it('kill() takes the sandbox down, and runsc run killed with SIGKILL leaves nothing after finishTrial', async () => {
    const killed = makeTrial(test);
    await executor.stageWorkspace(killed);
    const running = await executor.launch(killed, sh('echo REFERENCE_READY; sleep 600'));
    await waitForLine(running, (text) => text === 'REFERENCE_READY');
    await running.kill('test');
    await running.kill('test again');
    await running.exit;
    await executor.finishTrial(killed);
    await executor.finishTrial(killed);
    await expectNothingLeft(killed);

    const crashed = makeTrial(test);
    await executor.stageWorkspace(crashed);
    const second = await executor.launch(crashed, sh('echo REFERENCE_READY; sleep 600'));
    await waitForLine(second, (text) => text === 'REFERENCE_READY');
    process.kill(second.rootPids()[0]!, 'SIGKILL');
    const exit = await second.exit;
    expect(exit.exitCode === 0).toBe(false);
    await executor.finishTrial(crashed);
    await expectNothingLeft(crashed);
  });

  it('under a shared budget, runsc, its gofer and its sentry all stay in the budget\'s cgroups', async () => {
    const budget = CgroupBudget.create({ runId: test.run.runId, label: 'gvb', cpus: '0-1', memoryMiB: 1024, cleanup: test.run.cleanup });
    const trial = makeTrial(test, { controls: { cpus: '0-1', memoryMiB: null }, budget: budget.placement('inside') });
    try {
      await executor.stageWorkspace(trial);
      const running = await executor.launch(trial, sh('echo REFERENCE_READY; sleep 600'));
      await waitForLine(running, (text) => text === 'REFERENCE_READY');
      const tree = descendants(running.rootPids());
      expect(tree.map((proc) => proc.cmdline).join('\n')).toMatch(/runsc-sandbox|boot/);
      expect(tree.length).toBeGreaterThanOrEqual(3);
      const budgetPath = trial.budget!.cgroupParent;
      const outside = tree.filter((proc) => procCgroups(proc.pid)?.v1.get('memory') !== budgetPath).map((proc) => `${proc.pid} ${proc.comm} ${procCgroups(proc.pid)?.v1.get('memory')}`);
      expect(outside).toEqual([]);
      await running.kill('done');
      await running.exit;
    } finally {
      await executor.finishTrial(trial);
      await budget.destroy();
    }
    await expectNothingLeft(trial);
  });

  it('applies the memory limit through its own cgroup', async () => {
    const trial = makeTrial(test, { controls: { cpus: null, memoryMiB: 192 } });
    const out = await runOne(executor, trial, sh('head -1 /proc/meminfo'));
    expect(out.exit.exitCode).toBe(0);
    expect(out.stdout.join('\n')).toMatch(/^MemTotal:\s+196608 kB$/);
    expect(out.candidates.facts.gvisor_memory_limit).toBe(`cgroup /${containerName(test.run.runId, trial.trialId)}`);
    await expectNothingLeft(trial);
  });

  it('delivers stdin, shows tool layers read-only and reaches the one service socket', async () => {
    const tools = tempDir('gvisor-tools-');
    writeFileSync(join(tools, 'tool.txt'), 'tool content\n');
    const socketDir = tempDir('gvisor-svc-');
    const socketPath = join(socketDir, 'svc.sock');
    const service = createServer((socket) => socket.end('hello from service\n'));
    await new Promise<void>((resolve) => service.listen(socketPath, resolve));
    try {
      const script = [
        'read go; echo "got:$go"',
        'cat /run/sandbench/tools/tool.txt',
        'touch /run/sandbench/tools/x 2>/dev/null && echo TOOLS-WRITABLE',
        `python3 -c "import os,socket; s=socket.socket(socket.AF_UNIX); s.connect(os.environ['SANDBENCH_SERVICE_SOCKET']); print(s.recv(100).decode().strip())"`,
      ].join('; ');
      const trial = makeTrial(test);
      const out = await runOne(
        executor,
        trial,
        { argv: ['/bin/sh', '-c', script], env: {}, stdin: 'pipe', mounts: [{ source: tools, target: '/run/sandbench/tools', contentKey: 'v1' }], service: { name: 'svc', socketPath } },
        async (running) => running.writeStdin('GO\n'),
      );
      expect(out.exit.exitCode).toBe(0);
      expect(out.stdout).toEqual(['got:GO', 'tool content', 'hello from service']);
      expect(existsSync(join(tools, 'x'))).toBe(false);
      await expectNothingLeft(trial);
    } finally {
      service.close();
    }
  });

  it('the leftover finder deletes the containers and root of a dead run', async () => {
    const state = tempDir('gvisor-state-');
    const deadRun = `tdead${process.pid}`;
    const root = runscRoot(state, deadRun);
    mkdirSync(root, { recursive: true });
    const bundle = join(state, 'bundle');
    mkdirSync(bundle);
    writeFileSync(
      join(bundle, 'config.json'),
      JSON.stringify(ociConfig({ rootfsDir: test.run.image.rootfsDir, workspaceDir: test.baseline, task: sh('sleep 600'), controls: { cpus: null, memoryMiB: null }, cgroupsPath: null })),
    );
    const name = containerName(deadRun, 'c1');
    // `runsc create` leaves a created sandbox behind, as a run killed with -9 between create and delete would.
    execFileSync(runsc!, [...globalFlags(root, 'ptrace'), 'create', '--bundle', bundle, name], { stdio: 'ignore', timeout: 60_000 });
    expect(await listContainers(runsc!, root)).toEqual([name]);
    const found = await runscContainers.find(state);
    expect(found.map((l) => [l.kind, l.id, l.runId])).toEqual([
      ['container', `runsc/${name}`, deadRun],
      ['tempdir', root, deadRun],
    ]);
    for (const leftover of found) await leftover.remove();
    expect(existsSync(root)).toBe(false);
    expect(execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })).not.toContain(name);
    expect(await runscContainers.find(state)).toEqual([]);
  });
});
