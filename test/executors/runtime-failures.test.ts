/**
 * Runtime failures are infrastructure failures (issue 30): an OCI runtime that cannot start a
 * container is `setup_failed` with the runtime's own message, never the task's failure, and `run`
 * refuses an arm whose build cannot start a container before its first trial (exit 2, naming the arm
 * and the reason) unless --keep-going. The real failing runtime here: crun 1.8.1 on this cgroup v1
 * hybrid host ("cgroups in hybrid mode not supported").
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExitInfo, OutputLine } from '../../harness/contracts/executor.ts';
import { cgroupMode, classifyEngineExit } from '../../executors/container-common.ts';
import { createPodmanExecutor, podmanStartCheck } from '../../executors/podman.ts';
import { runWiring } from '../../cli/wiring.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { UserError } from '../../harness/errors.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { makeTrial, runOne, usePreparedExecutor } from '../support/trial-fixture.ts';

const exit = (exitCode: number): ExitInfo => ({ exitCode, signal: null, timedOut: false, tExitNs: 1n });
const err = (...texts: string[]): OutputLine[] => texts.map((text) => ({ stream: 'stderr', text, tNs: 1n }));

describe('classifyEngineExit', () => {
  it('an OCI runtime error (exit 126) is setup_failed with the runtime\'s own words', () => {
    const failure = classifyEngineExit('podman', exit(126), err('Error: OCI runtime error: crun: cgroups in hybrid mode not supported, drop all controllers from cgroupv2'));
    expect(failure?.category).toBe('setup_failed');
    expect(failure?.reason).toMatch(/exited 126, the container never started: Error: OCI runtime error: crun: cgroups in hybrid mode not supported/);
  });

  it('a runtime missing what it needs: its own cause, printed before the engine\'s line, is kept', () => {
    const failure = classifyEngineExit('podman', exit(126), err(
      'starting container: setting up network: creating interfaces from net namespace "/proc/473/ns/net": cannot run with network enabled in root network namespace',
      'Error: `/usr/bin/runsc start a22a` failed: exit status 128',
    ));
    expect(failure?.category).toBe('setup_failed');
    expect(failure?.reason).toContain('cannot run with network enabled in root network namespace | Error: `/usr/bin/runsc start a22a` failed');
  });

  it('the task\'s own failures stay the task\'s: a missing or unexecutable argv, a shell\'s 127, anything after READY', () => {
    expect(classifyEngineExit('podman', exit(127), err('Error: runc: runc create failed: unable to start container process: exec: "/no/such/binary": stat /no/such/binary: no such file or directory: OCI runtime attempted to invoke a command that was not found'))).toBeUndefined();
    expect(classifyEngineExit('podman', exit(126), err('Error: runc: runc create failed: unable to start container process: exec: "/etc/passwd": permission denied: OCI permission denied'))).toBeUndefined();
    expect(classifyEngineExit('docker', exit(127), err('docker: Error response from daemon: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/x": stat /x: no such file or directory: unknown.'))).toBeUndefined();
    expect(classifyEngineExit('podman', exit(127), err('sh: 1: frobnicate: not found'))).toBeUndefined();
    const ready: OutputLine = { stream: 'stdout', text: 'REFERENCE_READY', tNs: 1n };
    expect(classifyEngineExit('podman', exit(126), [ready, ...err('Error: something the task printed')])).toBeUndefined();
    expect(classifyEngineExit('podman', exit(1), err('Error: not an engine exit code'))).toBeUndefined();
  });
});

const podmanProbe = await createPodmanExecutor().probe();
const crunRefusesHere = podmanProbe.available && existsSync('/usr/bin/crun') && cgroupMode() === 'v1-hybrid';

describe.skipIf(!crunRefusesHere)('a real failing runtime: crun on a cgroup v1 hybrid host', () => {
  const crun = usePreparedExecutor('crun', () => createPodmanExecutor(null, { runtime: '/usr/bin/crun' }));

  it('a trial is setup_failed with crun\'s message', async () => {
    const outcome = await runOne(crun.executor, makeTrial(crun.test), { argv: ['/bin/sh', '-c', 'echo REFERENCE_READY'], env: {}, stdin: 'none' });
    expect(outcome.exit.exitCode).toBe(126);
    expect(outcome.exit.infraFailure?.category).toBe('setup_failed');
    expect(outcome.exit.infraFailure?.reason).toMatch(/crun: cgroups in hybrid mode not supported/);
  }, 120_000);

  it('the probe starts a real container with the arm\'s runtime: crun cannot, runc can', async () => {
    expect((await podmanStartCheck('/usr/sbin/runc')).failure).toBeNull();
    const probe = await createPodmanExecutor(null, { runtime: '/usr/bin/crun' }).probe();
    expect(probe).toMatchObject({ available: false, startFailed: true });
    expect(probe.reason).toMatch(/runtime \/usr\/bin\/crun cannot start a container here: `podman run --runtime \/usr\/bin\/crun` exited 126: .*crun: cgroups in hybrid mode not supported/);
  }, 120_000);

  it('run refuses the arm before its first trial (exit 2, naming it); --keep-going records it as skipped', async () => {
    const dir = tempDir('sandbench-crun-run-');
    const specPath = join(dir, 'spec.yaml');
    writeFileSync(specPath, [
      'name: crun-refused', 'experiment: command', 'warmups: 0', 'trials: 1', 'seed: 1', 'timeout: 30s',
      'arms:', '  - backend: host', '  - {backend: podman, build: {runtime: crun}}',
      'task:', '  argv: ["/bin/true"]', '',
    ].join('\n'));
    const wiring = await runWiring();
    const out = join(dir, 'bundle');
    const refused = await runSpec({ specPath, overrides: {}, out, requireAll: false, log: () => undefined, wiring }).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as UserError).exitCode).toBe(2);
    expect((refused as UserError).message).toMatch(/arm podman-crun cannot start: runtime \S*crun cannot start a container here: .*cgroups in hybrid mode not supported.*--keep-going/);
    expect(existsSync(join(out, 'journal.jsonl'))).toBe(false);

    const kept = await runSpec({ specPath, overrides: {}, out, requireAll: false, keepGoing: true, log: () => undefined, wiring });
    expect(kept.records.map((r) => r.arm.backend)).toEqual(['host']);
    const resolved = JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8'));
    // An arm with a build runtime and no variant is labelled after it (harness/spec/arm-label.ts).
    expect(resolved.skipped_arms).toEqual([{ arm: 'podman-crun', reason: expect.stringMatching(/hybrid mode not supported/) }]);
  }, 300_000);
});
