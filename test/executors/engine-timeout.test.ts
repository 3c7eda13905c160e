import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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

describe('engineExec on a hung engine', () => {
  it('gives a timed-out command exit 124 and says so, though the engine exited 0', async () => {
    const result = await engineExec(hungEngine(), ['ps', '--all'], 500);
    expect(result.exitCode).toBe(ENGINE_TIMEOUT_EXIT);
    expect(result.stderr).toMatch(/^podman ps timed out after 0.5 s/);
  });

  it('answers a prompt command as it ran', async () => {
    const engine: ContainerEngine = { kind: 'podman', cli: 'sh', globalArgs: ['-c'], env: {} };
    const result = await engineExec(engine, ['echo up; exit 3'], 5_000);
    expect([result.exitCode, result.stdout]).toEqual([3, 'up']);
  });
});

describe('removeContainer on a hung engine', () => {
  it('fails instead of reporting the container removed', async () => {
    const engine = hungEngine();
    // 1 s instead of the 60 s default: the same path, without a minute of the suite spent waiting
    await expect(removeContainer(engine, 'sandbench-x', 1_000)).rejects.toThrow(/podman rm -f sandbench-x failed: podman rm timed out after 1 s/);
  }, 30_000);
});
