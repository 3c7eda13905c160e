/**
 * The lazy-image shell is pinned through the launcher (sched_setaffinity before exec, no `taskset`
 * in its argv) and its record says how it was timed. A real bwrap shell on the task image's root,
 * entered through nsenter as the lazy client does (this process's own mount namespace stands in for
 * the client's; the httpfs2 mount itself is covered by lazy-client.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchLazyShell, lazyShellArgv } from '../../experiments/lazy-image/lazy-client.ts';
import { LAZY_READY_MARKER, RESULT_MARKER, observeLaunch } from '../../experiments/lazy-image/launch-observation.ts';
import { emptyOutcome, toRecord } from '../../experiments/lazy-image/lazy-record.ts';
import { closeTimingSession, timingSession } from '../../executors/launch/timing-session.ts';
import { nodePathForced } from '../../executors/launch/launcher-binary.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { TASK_IMAGE_REQUEST } from '../density/density-context.ts';

const root = process.getuid?.() === 0;
let rootDir = '';

beforeAll(async () => {
  rootDir = (await ensureTaskImage(stateDir(), TASK_IMAGE_REQUEST)).rootfsDir;
  await timingSession();
}, 300_000);
afterAll(async () => closeTimingSession());

describe.skipIf(!root || nodePathForced())('lazy-image launch timing', () => {
  it('pins the shell to the spec CPUs without a taskset exec and records the launcher timing', async () => {
    const mount = { rootDir, namespacePid: process.pid };
    const task = ['sh', '-c', `grep Cpus_allowed_list /proc/self/status; echo ${LAZY_READY_MARKER}; echo ${RESULT_MARKER} '{}'`];
    expect(lazyShellArgv(mount, task)).not.toContain('taskset');
    const running = launchLazyShell(mount, task, 30_000, '0');
    const observation = await observeLaunch(running, running.tSpawnNs);
    expect(observation.exit.exitCode, observation.lines.map((l) => l.text).join('\n')).toBe(0);
    expect(observation.lines.find((l) => l.text.startsWith('Cpus_allowed_list'))?.text).toMatch(/^Cpus_allowed_list:\s+0$/);
    expect(observation.timing).toMatchObject({ path: 'launcher', floor_n: expect.any(Number), warmup_launches: expect.any(Number) });
    const outcome = emptyOutcome();
    outcome.t0 = running.tSpawnNs;
    outcome.observation = observation;
    const record = toRecord({ trial_id: 'b0000-lazy:warm', block: 0, position: 0, warmup: false, arm: { backend: 'lazy', variant: 'warm' }, seed: 1, params: { phase: 'formal' } }, 'r', null, outcome);
    expect(record.facts.timing).toEqual(observation.timing);
  }, 60_000);
});
