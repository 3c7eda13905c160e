/** Real density batches on this machine's cgroup v1 budget (host and staged, small N). */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDensityBatch } from '../../experiments/density/density-batch.ts';
import { batchOptions, prepareDensityBaseline } from '../../experiments/density/density-kind.ts';
import { densityRecord } from '../../experiments/density/density-record.ts';
import { baseRecord } from '../../experiments/trial-experiment.ts';
import { canBudget, makeDensityContext, type DensityTestContext } from './density-context.ts';

let t: DensityTestContext;
beforeAll(async () => {
  t = await makeDensityContext({ arms: [{ backend: 'host' }, { backend: 'staged' }], density: { concurrency: [2], batches: 1, ready_timeout: '30s' } });
  await prepareDensityBaseline(t.ctx);
}, 120_000);
afterAll(async () => t?.dispose());

const planned = (backend: string, id: string, concurrency: number) => ({
  trial_id: id, block: 0, position: 0, warmup: false, arm: { backend, variant: null }, seed: 1, params: { workload: 'useful', concurrency },
});

describe.skipIf(!canBudget)('density batch (real budget)', () => {
  for (const backend of ['host', 'staged']) {
    it(`${backend}: N=3 useful workers all validate inside one verified budget`, async () => {
      const options = batchOptions(t.ctx, { backend, variant: null }, `ok-${backend}`, 'useful', 3);
      const result = await runDensityBatch(options);
      const record = densityRecord(baseRecord(t.ctx, planned(backend, `ok-${backend}`, 3)), { workload: 'useful', concurrency: 3 }, result);
      expect(record.notes).toEqual([]);
      expect(record.outcome).toBe('ok');
      expect(record.metrics.validated).toBe(3);
      expect(result.membership?.outside).toEqual([]);
      expect(result.membership!.checked).toBeGreaterThanOrEqual(3);
      // Three 32 MiB payloads are resident in the budget at the barrier.
      expect(record.metrics.barrier_memory_mib).toBeGreaterThan(3 * 32);
      expect(record.metrics.peak_memory_mib).toBeGreaterThanOrEqual(record.metrics.barrier_memory_mib!);
      expect(record.metrics.release_skew_ms).toBeGreaterThanOrEqual(0);
      expect(record.metrics.wall_ms).toBeGreaterThan(record.metrics.barrier_ms!);
      expect(result.budget?.read_back['memory.limit_in_bytes']).toBe(String(2048 * 1024 * 1024));
    }, 120_000);
  }

  it('a payload process outside the budget fails the batch as escaped budget', async () => {
    const options = batchOptions(t.ctx, { backend: 'host', variant: null }, 'escape', 'useful', 2);
    let intruder: ReturnType<typeof spawn> | null = null;
    options.beforeMembership = async ({ token }) => {
      // A real process of the batch (its argv carries the batch token) that never entered the budget.
      intruder = spawn('sh', ['-c', 'sleep 30; : "$0"', `${token}-stray`], { stdio: 'ignore' });
      await new Promise((r) => setTimeout(r, 100));
    };
    try {
      const result = await runDensityBatch(options);
      const record = densityRecord(baseRecord(t.ctx, planned('host', 'escape', 2)), { workload: 'useful', concurrency: 2 }, result);
      expect(result.escaped).toBe(true);
      expect(result.membership!.outside.map((m) => m.pid)).toEqual([intruder!.pid]);
      expect(record.outcome).toBe('failed');
      expect(record.failure_category).toBe('isolation_refused');
      expect(record.facts.failure_reasons).toMatchObject({ escaped_budget: 1 });
      expect(record.metrics.attempted).toBe(2);
    } finally {
      // Assigned in the beforeMembership callback, which tsc's narrowing of `let … = null` cannot see.
      (intruder as ReturnType<typeof spawn> | null)?.kill('SIGKILL');
    }
  }, 120_000);

  it('a batch that exceeds the budget keeps its OOM-killed workers in the denominator', async () => {
    // 4 × 32 MiB payloads cannot fit in 80 MiB with zero swap.
    const options = { ...batchOptions(t.ctx, { backend: 'host', variant: null }, 'oom', 'useful', 4), budgetMemoryMiB: 80 };
    const result = await runDensityBatch(options);
    const record = densityRecord(baseRecord(t.ctx, planned('host', 'oom', 4)), { workload: 'useful', concurrency: 4 }, result);
    expect(record.outcome).toBe('failed');
    expect(record.failure_category).toBe('oom');
    expect(record.metrics.attempted).toBe(4);
    expect(record.metrics.oom_count).toBeGreaterThanOrEqual(1);
    expect(record.metrics.validated).toBeLessThan(4);
    expect(result.oomKills).toBeGreaterThanOrEqual(1);
    expect(result.workers).toHaveLength(4);
  }, 120_000);
});
