import { describe, expect, it } from 'vitest';
import { judgeCheckpoint } from '../../experiments/checkpoint/checkpoint-judge.ts';
import { passingObservation } from './observation-fixture.ts';

describe('checkpoint judge: every correctness check can fail', () => {
  it('a complete observation passes, for both claims', () => {
    for (const preserves of ['files', 'files+process'] as const) {
      const verdict = judgeCheckpoint(passingObservation(preserves));
      expect(verdict.outcome).toBe('ok');
      expect(verdict.counts).toEqual({ ready: 3, filesOk: 3, processOk: preserves === 'files' ? 0 : 3, isolatedOk: 3 });
    }
  });

  it('files-only mechanisms are not asked for process state (fresh counter is fine)', () => {
    const verdict = judgeCheckpoint(passingObservation('files'));
    expect(verdict.validity.process_state).toBeUndefined();
  });

  it('a child that sees a sibling\'s write makes the trial invalid', () => {
    const obs = passingObservation('files');
    obs.childObservations[1]!.siblingsSeen = 1;
    const verdict = judgeCheckpoint(obs);
    expect(verdict.outcome).toBe('invalid');
    expect(verdict.validity.siblings_isolated).toBe('fail');
    expect(verdict.failureCategory).toBe('isolation_refused');
  });

  it('a shared file holding a sibling\'s version makes the trial invalid', () => {
    const obs = passingObservation('files');
    obs.childObservations[0]!.sharedSha = obs.divergence[2]!.sharedSha;
    expect(judgeCheckpoint(obs).validity.siblings_isolated).toBe('fail');
  });

  it('a lost counter makes a process-claiming mechanism invalid (never a fast time)', () => {
    const obs = passingObservation('files+process');
    obs.childObservations[2]!.before!.counter = 0;
    const verdict = judgeCheckpoint(obs);
    expect(verdict.outcome).toBe('invalid');
    expect(verdict.validity.process_state).toBe('fail');
    expect(verdict.notes.join(' ')).toMatch(/process state lost/);
  });

  it('a different token (a fresh process with the same counter) is also lost state', () => {
    const obs = passingObservation('files+process');
    obs.childObservations[0]!.before!.token = 'other';
    expect(judgeCheckpoint(obs).validity.process_state).toBe('fail');
  });

  it('a counter moved by siblings (shared process) fails isolation', () => {
    const obs = passingObservation('files+process');
    obs.childObservations[1]!.counterAfter = obs.childObservations[1]!.before!.counter + 3;
    expect(judgeCheckpoint(obs).validity.siblings_isolated).toBe('fail');
  });

  it('a changed baseline makes the trial invalid', () => {
    const obs = passingObservation('files');
    obs.baselineAfter = 'changed';
    const verdict = judgeCheckpoint(obs);
    expect(verdict.outcome).toBe('invalid');
    expect(verdict.validity.baseline_unchanged).toBe('fail');
  });

  it('a frozen parent changed by a child makes the trial invalid', () => {
    const obs = passingObservation('files+process');
    obs.frozenAfter = 'written-through';
    expect(judgeCheckpoint(obs).validity.parent_frozen).toBe('fail');
    expect(judgeCheckpoint(obs).outcome).toBe('invalid');
  });

  it('a child whose files differ from the parent at checkpoint makes the trial invalid', () => {
    const obs = passingObservation('files');
    obs.childObservations[0]!.before!.tree = 'pristine-image';
    const verdict = judgeCheckpoint(obs);
    expect(verdict.validity.files_match).toBe('fail');
    expect(verdict.counts.filesOk).toBe(2);
  });

  it('a parent that never reached the mid-rollout state is invalid', () => {
    const obs = passingObservation('files');
    obs.parent!.deletedPresent = '1';
    expect(judgeCheckpoint(obs).validity.parent_state_written).toBe('fail');
  });

  it('a refused restore is an infrastructure failure, kept apart from correctness', () => {
    const obs = passingObservation('files+process');
    obs.childObservations[1] = { ...obs.childObservations[1]!, error: 'podman container restore failed: criu', before: null, restoreMs: null };
    const verdict = judgeCheckpoint(obs);
    expect(verdict.outcome).toBe('failed');
    expect(verdict.failureCategory).toBe('setup_failed');
    expect(verdict.counts.ready).toBe(2);
  });

  it('a checkpoint that failed is upstream_failed with its reason', () => {
    const obs = passingObservation('files+process');
    obs.infra = { category: 'upstream_failed', reason: 'checkpoint: criu dump failed' };
    obs.childObservations = [];
    const verdict = judgeCheckpoint(obs);
    expect(verdict.outcome).toBe('failed');
    expect(verdict.failureCategory).toBe('upstream_failed');
    expect(verdict.notes[0]).toMatch(/criu dump failed/);
  });
});
