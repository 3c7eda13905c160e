/**
 * A density batch record carries the GO release as it was stamped (path, each write's offset, skew)
 * and how its workers were launched (issue 14): a real host batch of three through the launcher.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDensityBatch } from '../../experiments/density/density-batch.ts';
import { batchOptions, prepareDensityBaseline } from '../../experiments/density/density-kind.ts';
import { densityRecord } from '../../experiments/density/density-record.ts';
import { baseRecord } from '../../experiments/trial-experiment.ts';
import { nodePathForced } from '../../executors/launch/launcher-binary.ts';
import { canBudget, makeDensityContext, type DensityTestContext } from './density-context.ts';

let t: DensityTestContext;
beforeAll(async () => {
  t = await makeDensityContext({ arms: [{ backend: 'host' }], density: { concurrency: [3], batches: 1, ready_timeout: '30s' } });
  await prepareDensityBaseline(t.ctx);
}, 120_000);
afterAll(async () => t?.dispose());

describe.skipIf(!canBudget || nodePathForced())('density record: release and timing', () => {
  it('records every GO write (offsets from the first, skew = max offset) and each worker’s timing path', async () => {
    const options = batchOptions(t.ctx, { backend: 'host', variant: null }, 'release', 'idle', 3);
    const result = await runDensityBatch(options);
    const planned = { trial_id: 'release', block: 0, position: 0, warmup: false, arm: { backend: 'host', variant: null }, seed: 1, params: { workload: 'idle', concurrency: 3 } };
    const record = densityRecord(baseRecord(t.ctx, planned), { workload: 'idle', concurrency: 3 }, result);
    expect(record.notes).toEqual([]);
    const release = record.facts.release as { path: string; skew_ms: number; first_write_ns: string; write_offsets_ms: number[]; failed_writes: number; load_average_1m: number };
    expect(release.path).toBe('launcher');
    expect(release.write_offsets_ms).toHaveLength(3);
    expect(release.write_offsets_ms[0]).toBe(0);
    expect(release.failed_writes).toBe(0);
    // The recorded skew is the metric the density bench prints, and it is the spread of the offsets.
    expect(release.skew_ms).toBe(record.metrics.release_skew_ms);
    expect(release.skew_ms).toBeCloseTo(Math.max(...release.write_offsets_ms) - Math.min(...release.write_offsets_ms), 9);
    expect(BigInt(release.first_write_ns)).toBeGreaterThan(0n);
    expect(release.load_average_1m).toBe(record.metrics.load_average_1m);
    expect(record.facts.timing).toMatchObject({ path: 'launcher', floor_n: expect.any(Number) });
    const workers = record.facts.workers as { timing: { path: string; warmup_launches?: number } | null }[];
    expect(workers.map((w) => w.timing?.path)).toEqual(['launcher', 'launcher', 'launcher']);
    // Only a launch onto an idle launcher warms up: the batch's later workers start while the first runs.
    expect(workers.slice(1).map((w) => w.timing?.warmup_launches)).toEqual([0, 0]);
  }, 120_000);
});
