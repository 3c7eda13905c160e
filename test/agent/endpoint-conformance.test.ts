/**
 * Conformance, per sandboxing backend: with a task service, the model service is the ONLY
 * reachable destination. Inside: structural checks (interfaces, routes) and connection attempts
 * that must fail (experiments/agent/endpoint_probe.py); outside: the service journal, the complete
 * model traffic, must hold exactly the probe's one request. Real backends; each skipped with its
 * probe's reason when unavailable here. The host backend is not a sandbox and is not checked.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor, TaskCommand } from '../../harness/contracts/executor.ts';
import { createExecutor } from '../../executors/registry.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { loadModelScript, startModelService, type ModelJournalEntry, type ModelService } from '../../services/model/index.ts';
import { makeTestRun, makeTrial, runOne, type TestRun } from '../support/trial-fixture.ts';

const PROBE = join(PROJECT_ROOT, 'experiments', 'agent', 'endpoint_probe.py');

interface ProbeFacts {
  interfaces: string[] | null;
  routes: { iface: string; dest: string; mask: string }[] | null;
  model: { via: string; status_line?: string; error?: string };
  negatives: { dest: string; result: string; ms: number }[];
}

const backends: [string, () => Executor, number][] = [
  ['staged', () => createExecutor('staged', null)!, 60_000],
  ['podman', () => createExecutor('podman', null)!, 120_000],
  ['docker', () => createExecutor('docker', null)!, 180_000],
  // TCG boot on a loaded 2-core machine: minutes, not seconds.
  ['qemu-microvm', () => createExecutor('qemu-microvm', null)!, 400_000],
];

for (const [name, make, budgetMs] of backends) {
  const executor = make();
  const probe = await executor.probe();
  describe.skipIf(!probe.available)(`${name}: the model service is the only reachable destination`, () => {
    let test: TestRun;
    let service: ModelService;
    let support: string;
    beforeAll(async () => {
      test = await makeTestRun(`ep${name.replace(/[^a-z]/g, '')}`);
      support = join(test.root, 'support');
      mkdirSync(support);
      copyFileSync(PROBE, join(support, 'endpoint_probe.py'));
      service = await startModelService({ script: loadModelScript(join(PROJECT_ROOT, 'data', 'model-scripts', 'marker.yaml')), socketDir: test.root, slots: 1 });
      await executor.prepare(test.run);
    }, budgetMs);
    afterAll(async () => {
      await service?.close();
      await executor.teardown();
      await test?.dispose();
    }, 120_000);

    it('reaches the service once and nothing else', async () => {
      const task: TaskCommand = {
        argv: ['python3', '/run/sandbench/support/endpoint_probe.py'],
        env: {},
        stdin: 'none',
        mounts: [{ source: support, target: '/run/sandbench/support', contentKey: `endpoint-probe-${Date.now()}` }],
        service: { name: 'model', socketPath: service.socketPath },
      };
      const outcome = await runOne(executor, makeTrial(test, { timeoutMs: budgetMs - 10_000 }), task);
      const line = outcome.stdout.find((text) => text.startsWith('ENDPOINT_PROBE '));
      expect(line, `no probe output; stderr: ${outcome.stderr.slice(-5).join(' | ')}`).toBeDefined();
      const facts = JSON.parse(line!.slice('ENDPOINT_PROBE '.length)) as ProbeFacts;

      expect(facts.model.status_line).toMatch(/^HTTP\/1\.1 200/);
      for (const negative of facts.negatives) {
        expect(negative.result, negative.dest).not.toBe('connected');
        // No route fails at once; a 3 s timeout would mean packets went somewhere.
        expect(negative.ms, negative.dest).toBeLessThan(1000);
      }
      if (name.startsWith('qemu-')) {
        expect(facts.interfaces).toEqual(['eth0', 'lo']);
        expect(facts.routes).toEqual([{ iface: 'eth0', dest: '10.0.2.100', mask: '255.255.255.255' }]);
      } else {
        expect(facts.interfaces).toEqual(['lo']);
        expect(facts.routes ?? []).toEqual([]);
      }
      // The journal is the complete model traffic: the probe's single GET.
      const entries = readFileSync(service.journalPath, 'utf8').trim().split('\n').filter(Boolean).map((text) => JSON.parse(text) as ModelJournalEntry);
      expect(entries.map((entry) => `${entry.method} ${entry.path} ${entry.http_status}`)).toEqual(['GET /v1/models 200']);
    }, budgetMs);
  });
}
