/**
 * Real staged and host checkpoints (files only): a passing trial leaves nothing behind, and real
 * mechanisms broken on purpose (children sharing one workspace, a files-only mechanism claiming
 * process state) are caught by the judge. ~15 s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHostCheckpoint } from '../../executors/checkpoint/host-mechanism.ts';
import type { CheckpointMechanism } from '../../executors/checkpoint/mechanism.ts';
import { createStagedCheckpoint } from '../../executors/checkpoint/staged-mechanism.ts';
import { judgeCheckpoint } from '../../experiments/checkpoint/checkpoint-judge.ts';
import { runCheckpointTrial } from '../../experiments/checkpoint/checkpoint-trial.ts';
import { checkpointLeftovers, makeCheckpointRun, type CheckpointTestRun } from './checkpoint-context.ts';

let test: CheckpointTestRun;
beforeAll(async () => {
  test = await makeCheckpointRun('ckfiles');
}, 300_000);
afterAll(async () => {
  await test?.dispose();
});

async function trial(mechanism: CheckpointMechanism, id: string, children = 2) {
  await mechanism.prepare(test.run);
  return runCheckpointTrial({ mechanism, trial: test.trial(id), seed: 11, children, fileMiB: 2, requestTimeoutMs: 60_000 });
}

describe('files-only checkpoint mechanisms on this machine', () => {
  for (const [name, create] of [['staged', createStagedCheckpoint], ['host', createHostCheckpoint]] as const) {
    it(`${name}: K=2 children see the parent's files, diverge alone, and nothing is left behind`, async () => {
      const obs = await trial(create(null), `${name}-ok`);
      const verdict = judgeCheckpoint(obs);
      expect(verdict.notes).toEqual([]);
      expect(verdict.outcome).toBe('ok');
      expect(verdict.counts).toMatchObject({ ready: 2, filesOk: 2, isolatedOk: 2, processOk: 0 });
      expect(obs.diskBytes).toBeGreaterThan(2 * 1024 * 1024);
      expect(obs.childObservations.every((child) => child.restoreMs! > 0 && child.memory!.pssKiB > 0)).toBe(true);
      expect(await checkpointLeftovers(test)).toEqual([]);
    }, 120_000);
  }

  it('children sharing one workspace are caught (a child sees its sibling\'s write)', async () => {
    const real = createHostCheckpoint(null);
    // Broken on purpose: every child is started in child 0's copy, so their writes are shared. The
    // restores run one after another: two concurrent `cp -a` into one directory race each other
    // (a child then fails to start, and the trial is an infrastructure failure, not the finding).
    let previous: Promise<unknown> = Promise.resolve();
    const broken: CheckpointMechanism = {
      ...real,
      restore: (trial, image) => {
        const restored = previous.catch(() => undefined).then(() => real.restore(trial, image, 0));
        previous = restored;
        return restored;
      },
    };
    const verdict = judgeCheckpoint(await trial(broken, 'host-shared'));
    expect({ outcome: verdict.outcome, notes: verdict.notes }).toMatchObject({ outcome: 'invalid' });
    expect(verdict.validity.siblings_isolated).toBe('fail');
    expect(verdict.failureCategory).toBe('isolation_refused');
    expect(await checkpointLeftovers(test)).toEqual([]);
  }, 120_000);

  it('a files-only mechanism that claims process state is invalid, never a fast time', async () => {
    const real = createHostCheckpoint(null);
    const claiming: CheckpointMechanism = { ...real, preserves: 'files+process' };
    const verdict = judgeCheckpoint(await trial(claiming, 'host-claims'));
    expect(verdict.outcome).toBe('invalid');
    expect(verdict.validity.process_state).toBe('fail');
    expect(verdict.notes.join(' ')).toMatch(/process state lost/);
  }, 120_000);
});
