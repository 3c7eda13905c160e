import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { checkpointAnalysis, CHECKPOINT_SUMMARY_FILE, CHECKPOINT_SUMMARY_HEADER, checkpointCellOf } from '../../experiments/checkpoint/checkpoint-analysis.ts';
import { judgeCheckpoint } from '../../experiments/checkpoint/checkpoint-judge.ts';
import { checkpointRecord } from '../../experiments/checkpoint/checkpoint-record.ts';
import { plannedRecord } from '../../harness/journal/record-base.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { passingObservation } from './observation-fixture.ts';

const spec = parseSpec({ name: 'ck', experiment: 'checkpoint', arms: [{ backend: 'podman' }, { backend: 'docker' }], warmups: 0, trials: 6, seed: 1, timeout: '60s' });
const resolved = { run_id: 'run1', spec } as never;

function record(trial: number, mutate: (obs: ReturnType<typeof passingObservation>) => void = () => undefined, backend = 'podman'): TrialRecord {
  const obs = passingObservation('files+process', 2);
  obs.checkpointMs = 100 + trial;
  obs.childObservations.forEach((child, i) => (child.restoreMs = 200 + trial * 10 + i));
  mutate(obs);
  const base = plannedRecord('run1', 'checkpoint', { trial_id: `b${trial}`, block: trial, position: trial, warmup: false, arm: { backend, variant: null }, seed: trial, params: { children: 2 } });
  return checkpointRecord(base, obs, judgeCheckpoint(obs));
}

function rows(csv: string): Record<string, string>[] {
  return Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true }).data;
}

describe('checkpoint analysis (pure)', () => {
  const records: TrialRecord[] = [
    ...Array.from({ length: 6 }, (_, i) => record(i)),
    record(6, (obs) => (obs.childObservations[0]!.before!.counter = 0)), // lost state: invalid
    record(7, (obs) => (obs.childObservations[1] = { ...obs.childObservations[1]!, error: 'refused', before: null })), // failed
    { ...plannedRecord('run1', 'checkpoint', { trial_id: 'd0', block: 0, position: 9, warmup: false, arm: { backend: 'docker', variant: null }, seed: 1, params: { children: 2 } }), failure_category: 'setup_failed' as const, facts: { children: 2, unavailable: 'needs an experimental daemon' } },
  ];

  it('writes the documented header and one row per (mechanism, K)', () => {
    const out = checkpointAnalysis({ resolved, records });
    const csv = out.files.get(CHECKPOINT_SUMMARY_FILE)!;
    expect(csv.split('\n')[0]).toBe(CHECKPOINT_SUMMARY_HEADER.join(','));
    expect(rows(csv).map((r) => `${r.mechanism}:${r.children}:${r.status}`)).toEqual(['docker:2:unavailable', 'podman:2:measured']);
  });

  it('times only ok trials but keeps invalid and failed ones in the counts', () => {
    const podman = rows(checkpointAnalysis({ resolved, records }).files.get(CHECKPOINT_SUMMARY_FILE)!).find((r) => r.mechanism === 'podman')!;
    expect([podman.planned, podman.ok, podman.invalid, podman.failed]).toEqual(['8', '6', '1', '1']);
    expect(podman.checkpoint_ms_n).toBe('6');
    // Medians of 100..105 and of the per-trial median child (200.5, 210.5, ...): the invalid trial's values never enter.
    expect(Number(podman.checkpoint_ms_p50)).toBe(102.5);
    expect(Number(podman.restore_ms_p50)).toBe(225.5);
    expect(podman.checkpoint_ms_ci_low).not.toBe('');
    // Correctness counts over the children of ok + invalid trials: 7 trials × 2 children, one lost counter.
    expect([podman.children_judged, podman.process_ok, podman.files_ok]).toEqual(['14', '13', '14']);
  });

  it('lists an unavailable arm with its reason, as evidence too', () => {
    const out = checkpointAnalysis({ resolved, records });
    const docker = rows(out.files.get(CHECKPOINT_SUMMARY_FILE)!).find((r) => r.mechanism === 'docker')!;
    expect(docker.reason).toBe('needs an experimental daemon');
    const evidence = out.evidence.filter((row) => row.variant === 'docker:k2');
    expect(evidence).toHaveLength(1);
    expect(evidence[0]).toMatchObject({ scenario: 'fork_checkpoint', statistic: 'unavailable_failed_preflight', limitations: 'needs an experimental daemon' });
  });

  it('evidence rows carry checkpoint_ms, restore_ms, bytes and preserved (claimed vs held)', () => {
    const evidence = checkpointAnalysis({ resolved, records }).evidence.filter((row) => row.variant === 'podman:k2');
    expect(evidence.map((row) => row.metric)).toEqual(['checkpoint_ms', 'restore_ms', 'bytes', 'preserved']);
    const preserved = evidence.find((row) => row.metric === 'preserved')!;
    expect(preserved.value).toBe('files+process');
    expect(preserved.statistic).toBe('claimed_not_held'); // the invalid trial lost one child's counter
  });

  it('is deterministic and groups records by (arm, K)', () => {
    expect(checkpointAnalysis({ resolved, records }).files.get(CHECKPOINT_SUMMARY_FILE)).toBe(checkpointAnalysis({ resolved, records }).files.get(CHECKPOINT_SUMMARY_FILE));
    expect(checkpointCellOf(records[0]!)).toEqual({ backend: 'podman', variant: 'k2' });
  });
});
