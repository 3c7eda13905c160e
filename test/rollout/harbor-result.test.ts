import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { HARBOR_TRIALS_DIR, harborPhases, writeHarborResults } from '../../experiments/rollout/harbor-result.ts';
import { tempDir } from '../support/temp-dirs.ts';

const root = tempDir('sandbench-harbor-result-');

function record(over: Partial<TrialRecord> = {}): TrialRecord {
  return {
    run_id: 'r1', schema_version: 1 as never, experiment: 'rollout', arm: { backend: 'staged', variant: 'oracle' }, block: 0, position: 0,
    trial_id: 'b0000-staged:oracle-c1-a0000', warmup: false, seed: 34, outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: null,
    ready_ms: 300, result_ms: null, completion_ms: 1000,
    metrics: { wall_ms: 1000, prepare_ms: 100, ready_ms: 300, model_ms: 50, tool_ms: 150, evaluation_ms: 350, drop_ms: 50, reward: 1, attempt_start_offset_ms: 2000, memory_peak_bytes: 4096 },
    validity: {}, notes: [],
    facts: { task_id: 'count-words', evaluator_version: 'harbor-verifier/1+abc', agent_version: 'builtin', memory_method: 'cgroup', grade: { harbor_rewards: { reward: 1 }, note: null } },
    ...over,
  };
}

describe('Harbor phases and result.json of a rollout attempt', () => {
  it("maps sandbench's contiguous phases onto Harbor's names, teardown and an explicit remainder", () => {
    expect(harborPhases(record())).toEqual({ environment_setup_ms: 400, agent_setup_ms: null, agent_execution_ms: 200, verifier_ms: 350, teardown_ms: 50, unattributed_ms: 0 });
    expect(harborPhases(record({ metrics: { ...record().metrics, wall_ms: 1100 } })).unattributed_ms).toBe(100);
  });

  it('writes one TrialResult-shaped result.json per Harbor attempt, consecutive phases from the attempt start, and skips other tasks', () => {
    const cellStart = Date.parse('2026-12-02T07:00:00.000Z');
    const failed = record({ trial_id: 't-failed', outcome: 'failed', failure_category: 'timeout', notes: ['scoring sandbox: timed out'], metrics: { ...record().metrics, reward: undefined as never } });
    writeHarborResults(root, [record(), failed, record({ trial_id: 'builtin-task', facts: { task_id: 'clamp-bounds' } })], new Map([['count-words', '/tasks/count-words']]), cellStart, 'oracle');
    const result = JSON.parse(readFileSync(join(root, HARBOR_TRIALS_DIR, 'b0000-staged:oracle-c1-a0000', 'result.json'), 'utf8'));
    expect(result).toMatchObject({
      task_name: 'count-words', trial_name: 'b0000-staged:oracle-c1-a0000', task_id: { path: '/tasks/count-words' },
      agent_info: { name: 'oracle' }, verifier_result: { rewards: { reward: 1 } }, exception_info: null,
      started_at: '2026-12-02T07:00:02.000Z', finished_at: '2026-12-02T07:00:03.000Z',
      environment_setup: { started_at: '2026-12-02T07:00:02.000Z', finished_at: '2026-12-02T07:00:02.400Z' },
      agent_setup: null,
      agent_execution: { started_at: '2026-12-02T07:00:02.400Z', finished_at: '2026-12-02T07:00:02.600Z' },
      verifier: { started_at: '2026-12-02T07:00:02.600Z', finished_at: '2026-12-02T07:00:02.950Z' },
      sandbench: { teardown: { started_at: '2026-12-02T07:00:02.950Z', finished_at: '2026-12-02T07:00:03.000Z' }, memory_peak_bytes: 4096, reward: 1 },
    });
    const failedResult = JSON.parse(readFileSync(join(root, HARBOR_TRIALS_DIR, 't-failed', 'result.json'), 'utf8'));
    expect(failedResult.exception_info).toMatchObject({ exception_type: 'sandbench.timeout', exception_message: 'scoring sandbox: timed out' });
    expect(() => readFileSync(join(root, HARBOR_TRIALS_DIR, 'builtin-task', 'result.json'))).toThrow(/ENOENT/);
  });
});
