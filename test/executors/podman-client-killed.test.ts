/**
 * The podman client of a trial killed by a signal the harness never sent (another process's cleanup
 * did this to a live gate run here: 7 of 200 trials) is killed_externally — infrastructure, not the
 * task — and leaves no container behind.
 */
import { describe, expect, it } from 'vitest';
import { containersOfRun } from '../../executors/container-common.ts';
import { createPodmanExecutor } from '../../executors/podman.ts';
import { makeTrial, runOne, sh, usePreparedExecutor, waitForLine } from '../support/trial-fixture.ts';

const probe = await createPodmanExecutor().probe();

describe.skipIf(!probe.available)('podman client killed from outside', () => {
  const prepared = usePreparedExecutor('podkill', createPodmanExecutor, { checkCleanup: true });

  it('SIGKILL to the client → killed_externally naming the signal', async () => {
    const outcome = await runOne(prepared.executor, makeTrial(prepared.test), sh('echo READY; sleep 30'), async (running) => {
      await waitForLine(running, (text) => text === 'READY');
      for (const pid of running.rootPids()) process.kill(pid, 'SIGKILL');
    });
    expect(outcome.exit.signal).toBe('SIGKILL');
    expect(outcome.exit.infraFailure?.category).toBe('killed_externally');
    expect(outcome.exit.infraFailure?.reason).toMatch(/the podman client of container .* died of SIGKILL, which the harness did not send/);
    expect(await containersOfRun(prepared.executor.engine()!, prepared.test.run.runId)).toEqual([]);
  }, 120_000);
});
