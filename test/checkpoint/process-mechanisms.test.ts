/**
 * Real checkpoints that claim process state: podman and docker (experimental daemon) + runc + CRIU
 * 4.2 (K=2) and qemu-microvm under
 * QMP migrate-to-file (K=1, small file). Each child must continue the parent's counter with the same
 * token and structure, see the parent's files byte for byte, diverge alone; nothing is left after.
 * Skipped with the probe's reason where the mechanism is unavailable. ~30 s podman, ~20 s docker, ~60 s VM (idle).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDockerCheckpoint } from '../../executors/checkpoint/docker-mechanism.ts';
import { createPodmanCheckpoint } from '../../executors/checkpoint/podman-mechanism.ts';
import { createQemuCheckpoint } from '../../executors/checkpoint/qemu-mechanism.ts';
import type { CheckpointMechanism } from '../../executors/checkpoint/mechanism.ts';
import { judgeCheckpoint } from '../../experiments/checkpoint/checkpoint-judge.ts';
import { runCheckpointTrial } from '../../experiments/checkpoint/checkpoint-trial.ts';
import { checkpointLeftovers, makeCheckpointRun, type CheckpointTestRun } from './checkpoint-context.ts';

let test: CheckpointTestRun;
beforeAll(async () => {
  test = await makeCheckpointRun('ckproc');
}, 300_000);
afterAll(async () => {
  await test?.dispose();
});

async function checkOne(mechanism: CheckpointMechanism, id: string, children: number) {
  const probe = await mechanism.probe();
  if (!probe.available) {
    console.warn(`${mechanism.backend} checkpoint unavailable here: ${probe.reason}`);
    return;
  }
  await mechanism.prepare(test.run);
  const obs = await runCheckpointTrial({ mechanism, trial: test.trial(id, 600_000), seed: 5, children, fileMiB: 1, requestTimeoutMs: 600_000 });
  const verdict = judgeCheckpoint(obs);
  expect(verdict.notes).toEqual([]);
  expect(verdict.outcome).toBe('ok');
  expect(verdict.counts).toEqual({ ready: children, filesOk: children, processOk: children, isolatedOk: children });
  expect(obs.memoryBytes).toBeGreaterThan(0);
  for (const child of obs.childObservations) expect(child.before!.counter).toBe(obs.expected.counter);
  expect(await checkpointLeftovers(test)).toEqual([]);
}

describe('checkpoints that keep process state', () => {
  it('podman: two children continue the counter from one export', () => checkOne(createPodmanCheckpoint(null), 'podman-ok', 2), 600_000);
  it('docker: two children continue the counter (create + copied checkpoint dir + start --checkpoint)', async () => {
    const mechanism = createDockerCheckpoint(null);
    await checkOne(mechanism, 'docker-ok', 2);
    await mechanism.teardown();
  }, 600_000);
  it('qemu-microvm: a child continues the counter from the saved VM state', () => checkOne(createQemuCheckpoint('qemu-microvm', null), 'microvm-ok', 1), 900_000);
});
