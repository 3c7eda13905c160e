import { describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
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

