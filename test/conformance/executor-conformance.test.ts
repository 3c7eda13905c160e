/**
 * One suite every executor passes (STYLE.md: "a driver conformance gate"). It runs against every
 * registered backend that probes available here. Set SANDBENCH_REQUIRE_BACKENDS (CI does) to turn a
 * backend that is unexpectedly unavailable into a failure instead of a skip.
 */
import { createServer, type Server } from 'node:net';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendName, Executor, ProbeResult } from '../../harness/contracts/executor.ts';
import { BUILTIN_CATALOG, createExecutor } from '../../executors/registry.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import { makeTestRun, makeTrial, runOne, sh, waitForLine, type TestRun } from '../support/trial-fixture.ts';

const required = new Set((process.env.SANDBENCH_REQUIRE_BACKENDS ?? '').split(',').filter(Boolean));

const candidates: { backend: BackendName; executor: Executor; probe: ProbeResult }[] = [];
for (const backend of BUILTIN_CATALOG.names) {
  const executor = createExecutor(backend, null);
  if (!executor) continue;
  candidates.push({ backend, executor, probe: await executor.probe() });
}

it('every required backend is available', () => {
  const missing = [...required].filter((backend) => !candidates.find((c) => c.backend === backend && c.probe.available));
  expect(missing, missing.map((b) => `${b}: ${candidates.find((c) => c.backend === b)?.probe.reason ?? 'no adapter'}`).join('; ')).toEqual([]);
});

for (const { backend, executor, probe } of candidates) {
  describe.skipIf(!probe.available)(`executor conformance: ${backend}`, () => {
    let test: TestRun;
    let listener: Server;
    let port = 0;
    beforeAll(async () => {
      test = await makeTestRun(`conf${backend.replace(/[^a-z]/g, '')}`);
      await executor.prepare(test.run);
      listener = createServer((socket) => socket.end('hello from host\n'));
      await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
      port = (listener.address() as { port: number }).port;
    }, 600_000);
    afterAll(async () => {
      listener?.close();
      await executor.teardown();
      await test?.dispose();
    }, 120_000);

    it('times the ready marker before exit and captures stdout and stderr', async () => {
      const out = await runOne(executor, makeTrial(test), sh('echo REFERENCE_READY; echo to-stderr >&2; echo REFERENCE_RESULT {}'));
      expect(out.exit.exitCode).toBe(0);
      const ready = out.running.lines.find((l) => l.text === 'REFERENCE_READY');
      expect(ready).toBeDefined();
      const readyMs = Number(ready!.tNs - out.running.tSpawnNs) / 1e6;
      const completionMs = Number(out.exit.tExitNs - out.running.tSpawnNs) / 1e6;
      expect(readyMs).toBeGreaterThan(0);
      expect(readyMs).toBeLessThanOrEqual(completionMs);
      expect(out.stdout).toContain('REFERENCE_RESULT {}');
      expect(out.stderr.join('\n')).toContain('to-stderr');
    }, 120_000);

    it('propagates a non-zero exit code', async () => {
      const out = await runOne(executor, makeTrial(test), sh('echo REFERENCE_READY; exit 7'));
      expect(out.exit.exitCode).toBe(7);
      expect(out.exit.timedOut).toBe(false);
    }, 120_000);

    it('delivers stdin to the task', async () => {
      const out = await runOne(executor, makeTrial(test), sh('echo WAITING; read line; echo "got:$line"', 'pipe'), async (running) => {
        await waitForLine(running, (text) => text === 'WAITING');
        running.writeStdin('GO\n');
      });
      expect(out.exit.exitCode).toBe(0);
      expect(out.stdout).toContain('got:GO');
    }, 120_000);

    it('reports candidate files, and leaves the host original untouched where it claims staging', async () => {
      const trial = makeTrial(test);
      const before = treeDigest(test.baseline);
      const out = await runOne(executor, trial, sh('cat a.txt; printf written > w.txt; echo more >> sub/b.txt'));
      expect(out.exit.exitCode).toBe(0);
      expect(out.stdout).toContain('hello');
      expect(out.candidates.changed).toEqual(expect.arrayContaining(['w.txt', 'sub/b.txt']));
      expect((await out.candidates.read('w.txt'))?.toString()).toBe('written');
      expect(treeDigest(test.baseline)).toBe(before);
      if (out.binding.claimsStaging) {
        expect(existsSync(join(test.baseline, 'w.txt'))).toBe(false);
      } else {
        // write-through backends change their host copy (a published finding, not a bug)
        expect(readFileSync(join(out.binding.hostPath, 'w.txt'), 'utf8')).toBe('written');
      }
    }, 120_000);

    // A backend whose traits say it leaves the network open (the host floor; pVisor with --overlaynet off) is not held to it.
    it.skipIf(!executor.traits.networkIsolated)('has no network: a TCP connect to a host loopback listener fails', async () => {
      const probeScript = `python3 -c "import socket,sys\ntry:\n  socket.create_connection(('127.0.0.1',${port}),timeout=3); print('CONNECTED')\nexcept OSError as e:\n  print('REFUSED', e)"`;
      const out = await runOne(executor, makeTrial(test), sh(probeScript));
      expect(out.stdout.join('\n')).toContain('REFUSED');
      expect(out.stdout.join('\n')).not.toContain('CONNECTED');
    }, 120_000);

    it('a timeout kills the whole launched tree', async () => {
      const marker = `sandbench-conformance-sleep-${test.run.runId}`;
      const started = Date.now();
      const out = await runOne(executor, makeTrial(test, { timeoutMs: 8_000 }), sh(`echo REFERENCE_READY; sleep 600; echo ${marker}`));
      expect(out.exit.timedOut).toBe(true);
      expect(Date.now() - started).toBeLessThan(60_000);
      const leftovers = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(marker) && !line.includes('ps -eo'));
      expect(leftovers).toEqual([]);
    }, 120_000);
  });
}
