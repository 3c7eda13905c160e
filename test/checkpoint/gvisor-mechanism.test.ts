/**
 * gVisor checkpoint/restore on the real runsc (ptrace): two children restored from one
 * `runsc checkpoint` image continue the parent's counter, see its files byte for byte, diverge
 * alone, and nothing (container, mount, runsc root, process) is left after. Skipped with the
 * probe's reason only when runsc is missing; failed then too when SANDBENCH_REQUIRE_BACKENDS names gvisor.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGvisorCheckpoint } from '../../executors/checkpoint/gvisor-mechanism.ts';
import { resolveBinary, runscRoot } from '../../executors/gvisor/runsc.ts';
import { createCheckpointMechanism } from '../../executors/checkpoint/registry.ts';
import { judgeCheckpoint } from '../../experiments/checkpoint/checkpoint-judge.ts';
import { runCheckpointTrial } from '../../experiments/checkpoint/checkpoint-trial.ts';
import { checkpointLeftovers, makeCheckpointRun, type CheckpointTestRun } from './checkpoint-context.ts';

const required = (process.env.SANDBENCH_REQUIRE_BACKENDS ?? '').split(',').includes('gvisor');
const mechanism = createGvisorCheckpoint(null);
const probe = await mechanism.probe();

describe.skipIf(!resolveBinary('runsc') && !required)(`gvisor checkpoint${probe.available ? '' : ` (${probe.reason})`}`, () => {
  let test: CheckpointTestRun;
  beforeAll(async () => {
    expect(probe.available, probe.reason).toBe(true);
    test = await makeCheckpointRun('ckgvisor');
    await mechanism.prepare(test.run);
  }, 300_000);
  afterAll(async () => {
    await mechanism.teardown();
    if (test) expect(existsSync(runscRoot(test.run.stateDir, test.run.runId))).toBe(false);
    await test?.dispose();
  });

  it('is the gvisor descriptor\'s mechanism, claiming process state', () => {
    expect(createCheckpointMechanism('gvisor', null)?.preserves).toBe('files+process');
  });

  it('two children continue the counter from one runsc checkpoint image', async () => {
    const obs = await runCheckpointTrial({ mechanism, trial: test.trial('gvisor-ok', 300_000), seed: 7, children: 2, fileMiB: 1, requestTimeoutMs: 120_000 });
    const verdict = judgeCheckpoint(obs);
    expect(verdict.notes).toEqual([]);
    expect(verdict.outcome).toBe('ok');
    expect(verdict.counts).toEqual({ ready: 2, filesOk: 2, processOk: 2, isolatedOk: 2 });
    expect(obs.parentPaused).toBe(true);
    expect(obs.memoryBytes).toBeGreaterThan(0);
    expect(obs.diskBytes).toBeGreaterThan(1024 * 1024);
    for (const child of obs.childObservations) {
      expect(child.before!.counter).toBe(obs.expected.counter);
      expect(child.restoreMs).toBeGreaterThan(0);
      expect(child.memory!.pssKiB).toBeGreaterThan(0);
    }
    expect(await checkpointLeftovers(test)).toEqual([]);
  }, 300_000);
});
