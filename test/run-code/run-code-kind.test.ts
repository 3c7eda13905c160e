/**
 * The run-code kind end to end on host and staged: a small stream (every verdict class) through the
 * real server and the real run loop; verl's verdicts match the stream's expectations, every request
 * has a record and a server journal line, and the summary counts every request.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { generateStream, DEFAULT_STREAM_OPTIONS } from '../../experiments/run-code/generate-stream.ts';
import { RunCodeJournalEntrySchema } from '../../services/run-code/index.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('run-code kind', () => {
  it('replays a stream on host and staged at two concurrencies and classifies every request as verl would', async () => {
    const dir = tempDir('run-code-kind-');
    const stream = generateStream({ ...DEFAULT_STREAM_OPTIONS, n: 400, runTimeoutS: 1 });
    // One entry of each verdict class, first, so a 4-request cell sends all four.
    const chosen = (['success', 'wrong_answer', 'runtime_error', 'timeout'] as const).map((verdict) => stream.find((entry) => entry.expect === verdict)!);
    writeFileSync(join(dir, 'stream.jsonl'), chosen.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
    const spec = join(dir, 'spec.yaml');
    writeFileSync(spec, [
      'name: run-code-test', 'experiment: run-code', 'arms: [{backend: host}, {backend: staged}]', 'warmups: 0', 'trials: 1', 'seed: 4', 'timeout: 60s',
      `run_code: {stream: ${join(dir, 'stream.jsonl')}, concurrency: [1, 4], requests: 4}`, '',
    ].join('\n'));
    const out = join(dir, 'bundle');
    const { records } = await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    expect(records).toHaveLength(2 * 2 * 4);
    for (const record of records) {
      expect(record.outcome, JSON.stringify(record.notes)).toBe('ok');
      expect(record.facts.verl_verdict).toBe(record.facts.expected_verdict);
      expect(record.metrics.round_trip_ms).toBeGreaterThan(0);
      expect(record.metrics.cell_requests_per_s).toBeGreaterThan(0);
      // The clients ran in a process of their own, whose CPU is on the record.
      expect(record.facts.client_pid).not.toBe(process.pid);
      expect(record.metrics.cell_client_cpu_cores).toBeGreaterThan(0);
    }
    expect(new Set(records.map((record) => record.facts.verl_verdict))).toEqual(new Set(['success', 'wrong_answer', 'runtime_error', 'timeout']));
    const journal = readFileSync(join(out, 'run-code-journal.jsonl'), 'utf8').trim().split('\n').map((line) => RunCodeJournalEntrySchema.parse(JSON.parse(line)));
    expect(journal).toHaveLength(records.length);
    expect(journal.map((entry) => entry.outcome).sort()).toEqual(expect.arrayContaining(['finished', 'runtime_error', 'timeout']));
    const summary = readFileSync(join(out, 'run-code-summary.csv'), 'utf8').trim().split('\n');
    expect(summary).toHaveLength(1 + 4);
    expect(summary.slice(1).map((row) => row.split(',').slice(0, 5).join(','))).toEqual(['host,c1,1,4,4', 'host,c4,4,4,4', 'staged,c1,1,4,4', 'staged,c4,4,4,4']);
  }, 300_000);
});
