/** The Node fallback: chosen (and said) when forced or when no launcher can be built, and still a working spawn path. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLauncher } from '../../executors/launch/launcher-binary.ts';
import { closeTimingSession, timingDetails, timingSession } from '../../executors/launch/timing-session.ts';
import { startTrial } from '../../executors/spawn-trial.ts';

describe('timing path fallback', () => {
  const saved = { ...process.env };
  afterAll(async () => {
    process.env = saved;
    await closeTimingSession();
  });

  it('no compiler: the build reports why instead of throwing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbench-nocc-'));
    process.env.CC = '/nonexistent/cc';
    try {
      const result = await buildLauncher(join(dir, 'sandbench-launch'));
      expect(result).toEqual({ ok: false, reason: 'no C compiler (/nonexistent/cc) on PATH' });
    } finally {
      delete process.env.CC;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('SANDBENCH_TIMING_PATH=node: trials run through Node, each says so, and the probe details give the reason', async () => {
    await closeTimingSession();
    process.env.SANDBENCH_TIMING_PATH = 'node';
    const session = await timingSession();
    expect(session).toEqual({ path: 'node', reason: 'SANDBENCH_TIMING_PATH=node' });
    expect(await timingDetails()).toEqual({ timing_path: 'node', timing_fallback_reason: 'SANDBENCH_TIMING_PATH=node' });
    const running = await startTrial({ argv: ['sh', '-c', 'echo REFERENCE_READY'], env: { PATH: '/usr/bin:/bin' }, clearEnv: true, stdin: 'none', timeoutMs: 10_000, controls: { cpus: '0', budget: null } });
    const exit = await running.exit;
    expect(exit.exitCode).toBe(0);
    expect(running.lines.map((l) => l.text)).toEqual(['REFERENCE_READY']);
    expect(running.timing).toEqual({ path: 'node', fallback_reason: 'SANDBENCH_TIMING_PATH=node' });
  });

  it('SANDBENCH_LAUNCHER_BIN naming a missing file falls back with that reason', async () => {
    await closeTimingSession();
    delete process.env.SANDBENCH_TIMING_PATH;
    process.env.SANDBENCH_LAUNCHER_BIN = '/nonexistent/sandbench-launch';
    const session = await timingSession();
    expect(session).toEqual({ path: 'node', reason: 'SANDBENCH_LAUNCHER_BIN=/nonexistent/sandbench-launch does not exist' });
    delete process.env.SANDBENCH_LAUNCHER_BIN;
  });
});
