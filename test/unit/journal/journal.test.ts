import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalWriter, readJournal } from '../../../harness/journal/journal.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../../harness/journal/trial-record.ts';
import { tempDir } from '../../support/temp-dirs.ts';

function record(i: number, outcome: TrialRecord['outcome'] = 'ok'): TrialRecord {
  return {
    run_id: 'r', schema_version: TRIAL_SCHEMA_VERSION, experiment: 'shell-ready', arm: { backend: 'host', variant: null },
    block: i, position: i, trial_id: `b${i}-host`, warmup: false, seed: i, outcome,
    failure_category: outcome === 'ok' ? null : 'timeout', exit_code: outcome === 'ok' ? 0 : null, t_spawn_ns: '123456789012345',
    ready_ms: 1.2345678901234567, result_ms: 2, completion_ms: 3, metrics: { ready_ms: 1.2345678901234567, completion_ms: 3 },
    validity: { ready_marker_once: 'pass' }, notes: [], facts: { accelerator: 'tcg' },
  };
}

describe('journal', () => {
  it('round-trips records exactly, failures included', () => {
    const path = join(tempDir('sb-journal-'), 'journal.jsonl');
    const writer = new JournalWriter(path);
    const written = [record(0), record(1, 'failed'), record(2)];
    written.forEach((r) => writer.append(r));
    writer.close();
    const { records, tornTail } = readJournal(path);
    expect(tornTail).toBeNull();
    expect(records).toEqual(written);
  });

  it('drops a torn last line with a warning, never silently', () => {
    const path = join(tempDir('sb-journal-'), 'journal.jsonl');
    const writer = new JournalWriter(path);
    writer.append(record(0));
    writer.close();
    appendFileSync(path, JSON.stringify(record(1)).slice(0, 40));
    const { records, tornTail } = readJournal(path);
    expect(records).toHaveLength(1);
    expect(tornTail).toMatch(/torn last line/);
  });

  it('refuses a corrupt line in the middle', () => {
    const path = join(tempDir('sb-journal-'), 'journal.jsonl');
    appendFileSync(path, `${JSON.stringify(record(0))}\n{"nope":1}\n${JSON.stringify(record(2))}\n`);
    expect(() => readJournal(path)).toThrow(/line 2/);
  });

  it('rejects a record with an unknown outcome', () => {
    const writer = new JournalWriter(join(tempDir('sb-journal-'), 'journal.jsonl'));
    expect(() => writer.append({ ...record(0), outcome: 'maybe' as never })).toThrow();
    writer.close();
    expect(readFileSync(writer.path, 'utf8')).toBe('');
  });
});
