/**
 * The container_clients control on real podman batches (cgroup v1 budget here): by default the
 * `podman run` clients stay outside the budget and are listed as outside by design; with
 * `container_clients: inside` each client is born inside the budget, nothing is outside by design,
 * its memory is charged to the batch, and the record and the cell's limitations say so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDensityBatch, type DensityBatchResult } from '../../experiments/density/density-batch.ts';
import { batchOptions, prepareDensityBaseline } from '../../experiments/density/density-kind.ts';
import { densityRecord } from '../../experiments/density/density-record.ts';
import { containerClientsOf } from '../../experiments/density/density-batch.ts';
import { densitySection } from '../../experiments/density/density-plan.ts';
import { baseRecord } from '../../experiments/trial-experiment.ts';
import { listProcesses } from '../../harness/controls/proc-tree.ts';
import { canBudget, makeDensityContext, type DensityTestContext } from './density-context.ts';

const N = 4;
let t: DensityTestContext;
beforeAll(async () => {
  t = await makeDensityContext({ arms: [{ backend: 'podman' }], density: { concurrency: [N], batches: 1, ready_timeout: '90s', workloads: ['idle'] } });
  await prepareDensityBaseline(t.ctx);
}, 300_000);
afterAll(async () => t?.dispose());

/** The `podman` client processes of a batch (their argv carries the batch token). */
const clientPids = (token: string): number[] => listProcesses().filter((p) => p.comm === 'podman' && p.cmdline.includes(token)).map((p) => p.pid);

async function batch(clients: 'outside' | 'inside'): Promise<{ result: DensityBatchResult; inside: boolean[]; record: ReturnType<typeof densityRecord> }> {
  const id = `clients-${clients}`;
  const options = { ...batchOptions(t.ctx, { backend: 'podman', variant: null }, id, 'idle', N), containerClients: clients };
  let inside: boolean[] = [];
  options.beforeMembership = async ({ token, budget }) => {
    inside = clientPids(token).map((pid) => budget.contains(pid) === true);
  };
  const result = await runDensityBatch(options);
  const planned = { trial_id: id, block: 0, position: 0, warmup: false, arm: { backend: 'podman', variant: null }, seed: 1, params: { workload: 'idle', concurrency: N } };
  const record = densityRecord(baseRecord(t.ctx, planned), { workload: 'idle', concurrency: N, containerClients: containerClientsOf(options) }, result);
  return { result, inside, record };
}

describe.skipIf(!canBudget)('density container_clients (real podman batches)', () => {
  it('outside by default, inside on request: where the clients run, what is charged, what the record says', async () => {
    expect(densitySection(t.ctx.spec).container_clients).toBe('outside');
    const outside = await batch('outside');
    const inside = await batch('inside');
    for (const { record } of [outside, inside]) {
      expect(record.notes).toEqual([]);
      expect(record.outcome).toBe('ok');
      expect(record.metrics.validated).toBe(N);
    }
    // Every client found at the barrier, outside the budget by default and inside on request.
    expect(outside.inside).toEqual(Array(N).fill(false));
    expect(inside.inside).toEqual(Array(N).fill(true));
    expect(outside.result.membership!.outsideByDesign.map((p) => p.comm)).toContain('podman');
    expect(inside.result.membership!.outsideByDesign).toEqual([]);
    expect(inside.result.membership!.outside).toEqual([]);
    expect(outside.record.facts.container_clients).toBe('outside');
    expect(inside.record.facts.container_clients).toBe('inside');
    // Each client holds several MiB of anonymous memory (~9 MiB here); inside, the batch is charged for it.
    expect(inside.record.metrics.barrier_memory_mib! - outside.record.metrics.barrier_memory_mib!).toBeGreaterThan(N * 3);
  }, 300_000);
});
