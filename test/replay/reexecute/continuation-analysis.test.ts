/**
 * replay-continuation.csv (issue 19, mode continue): per backend × format × continuing agent, times
 * from ok trials only, saw counts over every trial that reached the model, failures kept with their
 * category (a refused seeded session is `session_refused`), whole-prefix counts only for CLI resumes.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'papaparse';
import type { TrialRecord } from '../../../harness/journal/trial-record.ts';
import { continuationAnalysis, REPLAY_CONTINUATION_FILE, REPLAY_CONTINUATION_HEADER } from '../../../experiments/replay/reexecute/continuation-analysis.ts';

const record = (k: number, backend: string, over: Partial<TrialRecord> & { facts?: Record<string, unknown> }): TrialRecord =>
  ({ trial_id: `t${backend}${k}`, arm: { backend, variant: 'codex' }, outcome: 'ok', failure_category: null, metrics: { first_continuation_request_ms: 1000 + k, continuation_first_request_ms: 500 + k, continuation_ms: 900 }, validity: {}, notes: [], ...over, facts: { mode: 'continue', continuation_agent: 'codex 0.169.0 (native resume)', continuation_saw: 'replayed', continuation_whole_prefix: true, ...over.facts } }) as unknown as TrialRecord;

describe('continuation analysis', () => {
  it('counts what each continuation saw and keeps failures in the denominators', () => {
    const records = [
      ...Array.from({ length: 6 }, (_, k) => record(k, 'host', {})),
      record(6, 'host', { outcome: 'invalid', failure_category: 'task_failed', facts: { continuation_saw: 'historical' } }),
      record(7, 'host', { outcome: 'failed', failure_category: 'setup_failed', metrics: {}, facts: { continuation_failure: 'session_refused', continuation_saw: undefined, continuation_whole_prefix: undefined } }),
      record(0, 'staged', { facts: { continuation_agent: 'sandbench-builtin-agent', continuation_whole_prefix: undefined } }),
    ];
    const { files, tables } = continuationAnalysis(records);
    const rows = parse<Record<string, string>>(files.get(REPLAY_CONTINUATION_FILE)!, { header: true, skipEmptyLines: true });
    expect(rows.meta.fields).toEqual([...REPLAY_CONTINUATION_HEADER]);
    const host = rows.data.find((r) => r.backend === 'host')!;
    expect([host.planned, host.ok, host.failed, host.invalid]).toEqual(['8', '6', '1', '1']);
    expect(host.failure_categories).toBe('task_failed:1 session_refused:1');
    expect([host.first_request_n, host.first_request_p50_ms]).toEqual(['6', '1002.5']);
    expect(host.first_request_ci95_low_ms).not.toBe('');
    expect([host.saw_replayed, host.saw_historical, host.saw_unknown, host.whole_prefix, host.whole_prefix_judged]).toEqual(['6', '1', '0', '7', '7']);
    expect(host.seed_p50_ms).toBe('');
    const staged = rows.data.find((r) => r.backend === 'staged')!;
    expect([staged.continued_by, staged.whole_prefix, staged.first_request_ci95_low_ms]).toEqual(['sandbench-builtin-agent', '', '']);
    expect(tables[0]!.rows).toHaveLength(2);
  });

  it('a run without continuation trials writes the header and no table', () => {
    const { files, tables } = continuationAnalysis([record(0, 'host', { facts: { mode: 'replay-only' } })]);
    expect(files.get(REPLAY_CONTINUATION_FILE)!.trim()).toBe(REPLAY_CONTINUATION_HEADER.join(','));
    expect(tables).toEqual([]);
  });
});
