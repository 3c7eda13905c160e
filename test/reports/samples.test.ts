import { describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { medianOrderStatisticCi } from '../../reports/bundle/median-ci.ts';
import { armCounts, armOrder, reportMetricOrder, samplesFor } from '../../reports/bundle/samples.ts';

function record(partial: Partial<TrialRecord> & Pick<TrialRecord, 'trial_id' | 'block' | 'position'>): TrialRecord {
  return {
    run_id: 'r',
    schema_version: 1,
    experiment: 'density',
    arm: { backend: 'staged', variant: null },
    warmup: false,
    seed: 1,
    outcome: 'ok',
    failure_category: null,
    exit_code: null,
    t_spawn_ns: null,
    ready_ms: null,
    result_ms: null,
    completion_ms: null,
    metrics: {},
    validity: {},
    notes: [],
    facts: {},
    ...partial,
  };
}

describe('samples from the journal', () => {
  it('never pools density batches of different N: each (arm, workload, N) cell is its own group', () => {
    const records = [
      record({ trial_id: 'a', block: 0, position: 0, metrics: { wall_ms: 900 }, facts: { workload: 'useful', concurrency: 32 } }),
      record({ trial_id: 'b', block: 0, position: 1, metrics: { wall_ms: 500 }, facts: { workload: 'useful', concurrency: 16 } }),
      record({ trial_id: 'c', block: 1, position: 2, outcome: 'failed', failure_category: 'oom', facts: { workload: 'useful', concurrency: 32 } }),
    ];
    expect(armOrder([{ backend: 'staged' }, { backend: 'docker' }], records)).toEqual(['staged useful N=16', 'staged useful N=32', 'docker']);
    expect(samplesFor(records, 'wall_ms', 'staged useful N=32').map((s) => s.value)).toEqual([900]);
    expect(armCounts(records, 'staged useful N=32')).toEqual({ planned: 2, ok: 1, failed: 1, byCategory: { oom: 1 } });
  });

  it('orders metrics timing first, then metrics with units, then counts', () => {
    expect(reportMetricOrder(['validated', 'wall_ms', 'completion_ms', 'ready_ms', 'barrier_memory_mib'])).toEqual(['ready_ms', 'completion_ms', 'barrier_memory_mib', 'wall_ms', 'validated']);
  });
});

describe('order-statistic CI of the median (binomial, hand-checked)', () => {
  it('n = 6: [x(1), x(6)] with coverage 1 − 2/64', () => {
    const ci = medianOrderStatisticCi([6, 1, 5, 2, 4, 3])!;
    expect([ci.low, ci.high]).toEqual([1, 6]);
    expect(ci.coverage).toBeCloseTo(1 - 2 / 64, 12);
  });
  it('n = 10: [x(2), x(9)] with coverage 1 − 2·11/1024', () => {
    const ci = medianOrderStatisticCi([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])!;
    expect([ci.low, ci.high]).toEqual([2, 9]);
    expect(ci.coverage).toBeCloseTo(1 - 22 / 1024, 12);
  });
  it('n = 5 has no 95% interval; n = 10,000 stays finite', () => {
    expect(medianOrderStatisticCi([1, 2, 3, 4, 5])).toBeNull();
    const big = Array.from({ length: 10_000 }, (_, i) => i);
    const ci = medianOrderStatisticCi(big)!;
    expect(ci.low).toBeGreaterThan(4850);
    expect(ci.high).toBeLessThan(5150);
    expect(ci.coverage).toBeGreaterThanOrEqual(0.95);
  });
});
