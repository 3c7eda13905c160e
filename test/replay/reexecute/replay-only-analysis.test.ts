import { describe, expect, it } from 'vitest';
import type { AnalysisInput } from '../../../harness/analyze/kind-analysis.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../../harness/journal/trial-record.ts';
import { parseSpec } from '../../../experiments/registry.ts';
import { replayAnalysis } from '../../../experiments/replay/replay-analysis.ts';
import { REPLAY_CALLS_FILE, REPLAY_ONLY_SUMMARY_FILE, REPLAY_ONLY_SUMMARY_HEADER } from '../../../experiments/replay/reexecute/replay-only-analysis.ts';

const spec = parseSpec({
  name: 'replay-only', experiment: 'replay', arms: [{ backend: 'host' }], seed: 1, timeout: '30s',
  replay: { mode: 'replay-only', agents: ['codex'], trajectories: 3, repetitions: 3, branch_point_references: [{ backend: 'host', way: 'copy fork', statistic: 'restore', value_ms: 87, n: 2, source: 'ref' }] },
});

const VERDICTS = ['identical', 'identical', 'identical', 'identical', 'identical', 'identical', 'differs-expected'];

function record(i: number, ms: number, outcome: TrialRecord['outcome'] = 'ok', unexpectedAt: number | null = null): TrialRecord {
  const calls = VERDICTS.map((verdict, k) => ({ index: k, verdict: k === unexpectedAt ? 'differs-unexpected' : verdict, command: `cmd ${k}`, fresh: k === 6, duration_ms: 2 + k }));
  return {
    run_id: 'run1', schema_version: TRIAL_SCHEMA_VERSION, experiment: 'replay', arm: { backend: 'host', variant: 'codex' },
    block: i, position: i, trial_id: `t${i}`, warmup: false, seed: i, outcome, failure_category: outcome === 'ok' ? null : 'task_failed', exit_code: 0,
    t_spawn_ns: '1', ready_ms: 1, result_ms: null, completion_ms: ms, metrics: { completion_ms: ms, per_call_ms: ms / 10, replay_ms: ms / 2 },
    validity: { calls_replayed_in_order: 'pass', no_unexpected_differences: unexpectedAt === null ? 'pass' : 'fail' }, notes: [],
    facts: { subject: 'sandbench', calls, ...(unexpectedAt === null ? {} : { replay_failure_category: 'fidelity' }) },
  };
}

const input = (records: TrialRecord[]): AnalysisInput => ({ resolved: { run_id: 'run1', spec_path: 'x', spec_sha256: 'y', overrides: {}, skipped_arms: [], spec } as never, records });

describe('replay-only analysis', () => {
  const records = [...Array.from({ length: 8 }, (_, i) => record(i, 100 + i)), record(8, 50, 'invalid', 3)];
  const out = replayAnalysis(input(records));

  it('writes the replay-only summary: timings of ok trials only, fidelity of every judged trial, the invalid one in planned', () => {
    const [header, row] = out.files.get(REPLAY_ONLY_SUMMARY_FILE)!.trim().split('\n');
    expect(header).toBe(REPLAY_ONLY_SUMMARY_HEADER.join(','));
    const cells = Object.fromEntries(REPLAY_ONLY_SUMMARY_HEADER.map((h, i) => [h, row!.split(',')[i]]));
    expect([cells.planned, cells.ok, cells.invalid, cells.failure_categories, cells.completion_n]).toEqual(['9', '8', '1', 'fidelity:1', '8']);
    expect(Number(cells.completion_p50_ms)).toBe(103.5);
    expect(Number(cells.completion_ci95_low_ms)).toBe(100);
    expect([cells.calls_judged, cells.identical, cells.differs_expected, cells.differs_unexpected]).toEqual(['63', '53', '9', '1']);
  });

  it('gives per-call rows and tool_replay_cost / replay_fidelity evidence', () => {
    expect(out.files.get(REPLAY_CALLS_FILE)!.trim().split('\n')).toHaveLength(8);
    expect(out.evidence).toContainEqual(expect.objectContaining({ topic: 'tool_replay_cost', metric: 'per_call_ms', statistic: 'P50', n: 8, variant: 'host:codex' }));
    expect(out.evidence).toContainEqual(expect.objectContaining({ topic: 'replay_fidelity', statistic: 'differs_unexpected_count', n: 63, value: 1 }));
    expect(out.tables?.map((t) => t.caption)).toHaveLength(3);
    expect(out.tables![2]!.rows[0]).toEqual(expect.arrayContaining(['host', expect.stringContaining('copy fork: restore 87.00 (n=2)')]));
  });
});
