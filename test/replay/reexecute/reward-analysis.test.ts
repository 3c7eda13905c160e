/**
 * The reward columns of replay-only-summary.csv and the reward table (mode continue, builtin-fix):
 * mean over ok trials with the Wilson 95% CI; an evaluator failure stays in planned, never enters the
 * mean as 0; arms without scored trials leave the columns empty; one continued_attempt_reward row
 * per backend.
 */
import { parse } from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { AnalysisInput } from '../../../harness/analyze/kind-analysis.ts';
import type { TrialRecord } from '../../../harness/journal/trial-record.ts';
import { wilsonInterval } from '../../../harness/stats/index.ts';
import { parseSpec } from '../../../experiments/registry.ts';
import { replayAnalysis } from '../../../experiments/replay/replay-analysis.ts';
import { REPLAY_ONLY_SUMMARY_FILE } from '../../../experiments/replay/reexecute/replay-only-analysis.ts';

const spec = parseSpec({ name: 'c', experiment: 'replay', arms: [{ backend: 'host' }], warmups: 0, trials: 1, seed: 1, timeout: '30s', replay: { mode: 'continue', task: 'builtin-fix', agents: ['codex', 'swe-agent'], trajectories: 9, repetitions: 1 } });
const record = (i: number, agent: string, over: Partial<TrialRecord> & { reward?: number } = {}): TrialRecord =>
  ({
    trial_id: `t${agent}${i}`, experiment: 'replay', warmup: false, arm: { backend: 'host', variant: agent }, outcome: 'ok', failure_category: null, completion_ms: 100, metrics: { completion_ms: 100 + i, ...(over.reward === undefined ? {} : { reward: over.reward }) },
    validity: { calls_replayed_in_order: 'pass' }, notes: [], facts: { subject: 'sandbench', mode: 'continue', reward_task: 'csv-quoting', reward_path: over.reward === 0 ? 'wrong' : 'right', scoring_backend: 'staged', calls: [] }, ...over,
  }) as unknown as TrialRecord;

describe('continued-attempt reward in the analysis', () => {
  it('mean and Wilson CI over ok trials; evaluator failures stay in planned only', () => {
    const records = [
      ...Array.from({ length: 7 }, (_, i) => record(i, 'codex', { reward: 1 })),
      record(7, 'codex', { reward: 0 }),
      record(8, 'codex', { outcome: 'failed', failure_category: 'recording_failed', facts: { subject: 'sandbench', mode: 'continue', reward_task: 'csv-quoting', replay_failure_category: 'evaluator', calls: [] } } as never),
      record(0, 'swe-agent', { facts: { subject: 'sandbench', mode: 'continue', calls: [] } } as never),
    ];
    const out = replayAnalysis({ resolved: { run_id: 'r', spec } as never, records } as AnalysisInput);
    const rows = parse<Record<string, string>>(out.files.get(REPLAY_ONLY_SUMMARY_FILE)!, { header: true, skipEmptyLines: true }).data;
    const codex = rows.find((r) => r.agent === 'codex')!;
    const ci = wilsonInterval(7, 8);
    expect([codex.planned, codex.ok, codex.reward_n, codex.reward_mean]).toEqual(['9', '8', '8', '0.875']);
    expect([Number(codex.reward_ci95_low), Number(codex.reward_ci95_high)]).toEqual([ci.low, ci.high]);
    expect(codex.failure_categories).toBe('evaluator:1');
    const swe = rows.find((r) => r.agent === 'swe-agent')!;
    expect([swe.reward_n, swe.reward_mean, swe.reward_ci95_low]).toEqual(['', '', '']);
    const rewardRows = out.evidence!.filter((e) => e.topic === 'continued_attempt_reward');
    expect(rewardRows.map((e) => [e.variant, e.n, e.value])).toEqual([['host', 8, 0.875]]);
    const table = out.tables!.find((t) => t.caption.startsWith('Continued attempts'))!;
    expect(table.rows).toEqual([['host', '8/9', '0.875 [0.529, 0.978] (n=8)', '1 (1 scored 0)', '1']]);
  });
});
