import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeTimingSession, establishedSession, timingSession } from '../../executors/launch/timing-session.ts';
import { engineExec, removeContainer, ENGINE_TIMEOUT_EXIT, type ContainerEngine } from '../../executors/container-common.ts';
import { tempDir } from '../support/temp-dirs.ts';

// A stand-in engine CLI that behaves as a podman stuck on a libpod lock: it hangs, and on the SIGTERM
// of the timeout exits 0 with no output (podman's own signal handling).
function hungEngine(): ContainerEngine {
  const cli = join(tempDir('sandbench-hung-engine-'), 'podman');
  // The sleep's output goes to /dev/null so the pipes close with the script; the trap stops it too.
  writeFileSync(cli, "#!/bin/sh\nsleep 600 >/dev/null 2>&1 &\ntrap 'kill $!; exit 0' TERM\nwait $!\n");
  chmodSync(cli, 0o755);
  return { kind: 'podman', cli, globalArgs: [], env: {} };
}

afterAll(() => closeTimingSession());

/** Engine commands run through the run's launcher once it is up (a rollout's `rm`), else through execa: both paths are held to the same answers. */
const paths = [
  { path: 'node', enter: () => closeTimingSession() },
  { path: 'launcher', enter: async () => void (await timingSession()) },
] as const;

describe.each(paths)('engineExec on a hung engine, $path path', ({ path, enter }) => {
  it('gives a timed-out command exit 124 and says so, though the engine exited 0', async () => {
    await enter();
    expect(establishedSession()?.path ?? 'node').toBe(path);
    const result = await engineExec(hungEngine(), ['ps', '--all'], 500);
    expect(result.exitCode).toBe(ENGINE_TIMEOUT_EXIT);
    expect(result.stderr).toMatch(/^podman ps timed out after 0.5 s/);
  });

  it('answers a prompt command as it ran, with the engine\'s environment added to the harness\'s', async () => {
    await enter();
    const engine: ContainerEngine = { kind: 'podman', cli: 'sh', globalArgs: ['-c'], env: { SANDBENCH_ENGINE_PROBE: 'set' } };
    const result = await engineExec(engine, ['echo up "$SANDBENCH_ENGINE_PROBE" "${HOME:+home}"; echo said >&2; exit 3'], 5_000);
    expect([result.exitCode, result.stdout, result.stderr]).toEqual([3, 'up set home', 'said']);
  });

  it('says so when the engine CLI cannot be started', async () => {
    await enter();
    const result = await engineExec({ kind: 'docker', cli: '/nonexistent/docker', globalArgs: [], env: {} }, ['ps'], 5_000);
    expect(result.exitCode === undefined || result.exitCode === 127).toBe(true);
    expect(result.stderr).toMatch(/nonexistent\/docker|ENOENT|No such file/);
  });

  it('removeContainer fails instead of reporting the container removed', async () => {
    await enter();
    // 1 s instead of the 60 s default: the same path, without a minute of the suite spent waiting
    await expect(removeContainer(hungEngine(), 'sandbench-x', { timeoutMs: 1_000 })).rejects.toThrow(/podman rm -f sandbench-x failed: podman rm timed out after 1 s/);
  }, 30_000);
});
