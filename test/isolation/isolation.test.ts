/**
 * The workspace-boundary experiment end to end on real backends (host, staged, podman): the host
 * floor must show every negative reaching the host (proof the probes and the judge can see an
 * escape), staged must show none with the workspace staged, and Podman's writable bind mount
 * writes the host workspace directly (a finding, not a failure). Plus the pure evidence extension.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { isolationEvidence } from '../../experiments/isolation/isolation-analysis.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { sandbench } from '../support/cli.ts';
import { leftoverLines } from '../faults/fault-support.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('isolation experiment', () => {
  it('judges host, staged and podman by host bytes', async () => {
    const dir = tempDir('sandbench-iso-');
    const spec = join(dir, 'spec.yaml');
    writeFileSync(spec, `name: iso-test
experiment: isolation
arms: [{ backend: host }, { backend: staged }, { backend: podman }]
warmups: 0
trials: 1
seed: 8
timeout: 2m
`);
    const bundle = join(dir, 'bundle');
    const run = await sandbench(['run', spec, '--out', bundle, '--require-all']);
    expect(run.code, run.stderr).toBe(0);
    const records = readJournal(join(bundle, 'journal.jsonl')).records;
    const byBackend = Object.fromEntries(records.map((record) => [record.arm.backend, record]));
    for (const record of records) expect(record.outcome, `${record.arm.backend}: ${record.notes.join(' | ')}`).toBe('ok');

    expect(byBackend.host!.metrics).toMatchObject({ outside_reads: 4, outside_writes: 4, host_socket_connects: 1, alias_writes: 1, host_outside_mutated: 1, workspace_staged: 0 });
    expect(byBackend.staged!.metrics).toMatchObject({ outside_reads: 0, outside_writes: 0, host_socket_connects: 0, alias_writes: 0, host_outside_mutated: 0, host_lower_mutated: 0, workspace_staged: 1 });
    expect(byBackend.podman!.metrics).toMatchObject({ outside_reads: 0, outside_writes: 0, host_socket_connects: 0, host_outside_mutated: 0, host_lower_mutated: 1, workspace_staged: 0 });
    for (const record of records) expect(record.metrics).toMatchObject({ workspace_read_ok: 1, workspace_write_ok: 1, socketpair_ok: 1, probes_reported: 13 });

    const evidence = Papa.parse<Record<string, string>>(readFileSync(join(bundle, 'evidence.csv'), 'utf8'), { header: true, skipEmptyLines: true }).data;
    const row = (variant: string, metric: string) => evidence.find((r) => r.scenario === 'workspace_boundary' && r.variant === variant && r.metric === metric && r.statistic === 'observed_true_count');
    expect(row('staged', 'host-outside-mutated')).toMatchObject({ n: '1', value: '0' });
    expect(row('staged', 'workspace-staged')).toMatchObject({ n: '1', value: '1' });
    expect(row('podman', 'host-lower-mutated')).toMatchObject({ n: '1', value: '1' });
    expect(row('host', 'host-outside-mutated')).toMatchObject({ n: '1', value: '1' });
    expect((await sandbench(['verify', bundle])).code).toBe(0);
    const runId = JSON.parse(readFileSync(join(bundle, 'resolved-spec.json'), 'utf8')).run_id as string;
    expect(await leftoverLines(runId)).toEqual([]);
  }, 240_000);

  it('evidence: counts per arm over trials whose probes ran; failed trials named, never counted', () => {
    const spec = parseSpec({ name: 'x', experiment: 'isolation', arms: [{ backend: 'staged' }], warmups: 1, trials: 3, seed: 1, timeout: '1m' });
    const record = (trial: string, warmup: boolean, metrics: Record<string, number>, ran: boolean): TrialRecord => ({
      run_id: 'r', schema_version: 1, experiment: 'isolation', arm: { backend: 'staged', variant: null }, block: 0, position: 0, trial_id: trial, warmup, seed: 1,
      outcome: ran ? 'ok' : 'failed', failure_category: ran ? null : 'setup_failed', exit_code: 0, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null,
      metrics, validity: ran ? { probes_ran: 'pass', positives_work: 'pass' } : {}, notes: [], facts: {},
    } as TrialRecord);
    const flags = { probes_reported: 13, host_outside_mutated: 0, host_lower_mutated: 0, workspace_staged: 1, outside_reads: 0, host_socket_connects: 0 };
    const records = [
      record('w', true, { ...flags, host_outside_mutated: 1 }, true),
      record('a', false, flags, true),
      record('b', false, { ...flags, host_outside_mutated: 1, workspace_staged: 0 }, true),
      record('c', false, {}, false),
    ];
    const out = isolationEvidence({ resolved: { run_id: 'r', spec } as never, records });
    const get = (metric: string) => out.evidence.find((row) => row.metric === metric)!;
    expect(get('host-outside-mutated')).toMatchObject({ variant: 'staged', statistic: 'observed_true_count', n: 2, value: 1 });
    expect(get('workspace-staged')).toMatchObject({ n: 2, value: 1 });
    expect(get('host-outside-mutated').limitations).toContain('1 of 3 trials did not run the probes');
  });
});
