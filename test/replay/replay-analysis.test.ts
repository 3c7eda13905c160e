import { describe, expect, it } from 'vitest';
import type { AnalysisInput } from '../../harness/analyze/kind-analysis.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { REPLAY_SUMMARY_FILE, REPLAY_SUMMARY_HEADER, replayAnalysis } from '../../experiments/replay/replay-analysis.ts';

const spec = parseSpec({
  name: 'replay', experiment: 'replay', arms: [{ backend: 'host' }], seed: 1, timeout: '30s',
  controls: { cpus: '0,1' }, replay: { agents: ['codex'], trajectories: 20, repetitions: 3 },
});

function record(i: number, ms: number, outcome: TrialRecord['outcome'] = 'ok'): TrialRecord {
  return {
    run_id: 'run1', schema_version: TRIAL_SCHEMA_VERSION, experiment: 'replay', arm: { backend: 'sandbench', variant: 'codex' },
    block: i, position: i, trial_id: `t${i}`, warmup: false, seed: i, outcome, failure_category: null, exit_code: 0,
    t_spawn_ns: '1', ready_ms: null, result_ms: null, completion_ms: ms, metrics: { completion_ms: ms },
    validity: { one_result: 'pass', no_marker_files: outcome === 'ok' ? 'pass' : 'fail' }, notes: [],
    facts: { trajectory_sha256: `${i % 20}`.padStart(64, '0'), subject_sha256: 'a'.repeat(64) },
  };
}

const input = (records: TrialRecord[]): AnalysisInput => ({ resolved: { run_id: 'run1', spec_path: 'x', spec_sha256: 'y', overrides: {}, skipped_arms: [], spec } as never, records });

describe('replay analysis', () => {
  // 50 fast and 10 slow attempts (the published bimodal shape), plus one invalid attempt
  const records = [...Array.from({ length: 50 }, (_, i) => record(i, 6 + (i % 5) * 0.1)), ...Array.from({ length: 10 }, (_, i) => record(50 + i, 15 + i * 0.2)), record(60, 7, 'invalid')];
  const out = replayAnalysis(input(records));
  const csv = out.files.get(REPLAY_SUMMARY_FILE)!;
  const [header, row] = csv.trim().split('\n');
  const cells = Object.fromEntries(REPLAY_SUMMARY_HEADER.map((h, i) => [h, row!.split(',')[i]]));

  it('uses the published header and reports the clusters, not a single P50', () => {
    expect(header).toBe(REPLAY_SUMMARY_HEADER.join(','));
    expect(cells.distribution).toBe('separated-clusters');
    expect(cells.p50).toBe('');
    expect(cells.low_n).toBe('50');
    expect(cells.high_n).toBe('10');
  });

  it('keeps the invalid attempt in the denominator and out of the timings', () => {
    expect(cells.planned_conditions).toBe('61');
    expect(cells.failed_conditions).toBe('1');
    expect(cells.n).toBe('60');
    expect(out.evidence).toEqual([expect.objectContaining({ statistic: 'passed_prefix_checks', n: 61, value: 60, variant: 'sandbench:codex' })]);
  });

  it('is deterministic', () => expect(replayAnalysis(input(records)).files.get(REPLAY_SUMMARY_FILE)).toBe(csv));
});
