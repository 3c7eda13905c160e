/**
 * Warm-up launches (launcher/PROTOCOL.md): run only when the launcher runs nothing else, reported on
 * the spawn event and in the trial's timing facts, never mistaken for the trial (its exit, its output),
 * and never left behind as zombies.
 */
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateLauncher } from '../../executors/launch/launcher-binary.ts';
import { LauncherClient } from '../../executors/launch/launcher-client.ts';
import type { LauncherEvent, SpawnRequest } from '../../executors/launch/launcher-protocol.ts';
import { spawnWithLauncher } from '../../executors/launch/launcher-spawn.ts';
import { WARMUP_LAUNCHES, launchWarmups } from '../../executors/launch/spawn-options.ts';

const PATH = '/usr/bin:/bin';

/** Every event of one launch, until it exited or failed. */
function launch(client: LauncherClient, request: Omit<SpawnRequest, 'env' | 'stdin'>): Promise<LauncherEvent[]> {
  return new Promise((resolve, reject) => {
    const events: LauncherEvent[] = [];
    client.spawn(
      { env: { PATH }, stdin: 'none', timeoutMs: 10_000, ...request },
      {
        onEvent(event) {
          events.push(event);
          if (event.type === 'exit' || event.type === 'spawn-failed') resolve(events);
        },
        onLauncherDeath: (reason) => reject(new Error(reason)),
      },
    );
  });
}

/** Children of a PID (from /proc), any state: zombies of warm-ups would show here. */
function childrenOf(pid: number): { pid: number; state: string }[] {
  const found: { pid: number; state: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid) found.push({ pid: Number(entry), state: fields[0]! });
    } catch {
      // exited while we looked
    }
  }
  return found;
}

describe('launcher warm-up launches', () => {
  let client: LauncherClient;
  let binaryPath = '';
  beforeAll(async () => {
    const binary = await locateLauncher();
    if (!binary.ok) throw new Error(binary.reason);
    binaryPath = binary.path;
    client = await LauncherClient.start(binary.path);
  });
  afterAll(async () => {
    await client?.stop();
  });

  it('an idle launcher runs the requested warm-ups before the stamp; the trial keeps its own output and exit code', async () => {
    const events = await launch(client, { argv: ['sh', '-c', 'echo only-mine; exit 7'], warmups: 3 });
    const spawned = events.find((e) => e.type === 'spawned');
    expect(spawned).toMatchObject({ warmups: 3 });
    const output = events.filter((e): e is Extract<LauncherEvent, { type: 'output' }> => e.type === 'output');
    expect(Buffer.concat(output.map((e) => e.data)).toString()).toBe('only-mine\n');
    expect(events.at(-1)).toMatchObject({ type: 'exit', exitCode: 7 });
    expect(childrenOf(client.pid)).toEqual([]);
  });

  it('skips warm-ups while another launch is live (a density batch is not slowed down), and runs them again once idle', async () => {
    let release!: () => void;
    const longExit = new Promise<void>((resolve) => (release = resolve));
    const long = client.spawn(
      { argv: ['sleep', '5'], env: { PATH }, stdin: 'none', timeoutMs: 10_000, warmups: 3 },
      { onEvent: (event) => event.type === 'exit' && release(), onLauncherDeath: () => release() },
    );
    const during = await launch(client, { argv: ['true'], warmups: 3 });
    expect(during.find((e) => e.type === 'spawned')).toMatchObject({ warmups: 0 });
    long.signal('SIGKILL');
    await longExit;
    const after = await launch(client, { argv: ['true'], warmups: 2 });
    expect(after.find((e) => e.type === 'spawned')).toMatchObject({ warmups: 2 });
  });

  it('keeps warming up after a rebuild renamed a new binary over the running one (it re-executes /proc/self/exe)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbench-warmup-'));
    const copy = join(dir, 'sandbench-launch');
    copyFileSync(binaryPath, copy);
    chmodSync(copy, 0o755);
    const own = await LauncherClient.start(copy);
    try {
      writeFileSync(join(dir, 'replacement'), 'not a launcher\n');
      renameSync(join(dir, 'replacement'), copy);
      const events = await launch(own, { argv: ['true'], warmups: 2 });
      expect(events.find((e) => e.type === 'spawned')).toMatchObject({ warmups: 2 });
    } finally {
      await own.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a warm-up count out of range as a request error', async () => {
    const events = await launch(client, { argv: ['true'], warmups: 17 });
    expect(events[0]).toMatchObject({ type: 'spawn-failed', stage: 'request', message: expect.stringMatching(/warm-up count/) });
  });

  it('prime runs execute the command itself before the stamp, in its cwd, with stdio on /dev/null; the timed run keeps its own output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbench-prime-'));
    try {
      const events = await launch(client, { argv: ['sh', '-c', 'echo run >> log; wc -l < log'], cwd: dir, primes: 2 });
      expect(events.find((e) => e.type === 'spawned')).toMatchObject({ primes: 2 });
      const output = events.filter((e): e is Extract<LauncherEvent, { type: 'output' }> => e.type === 'output');
      // Two prime runs wrote their line silently; the timed run is the third and alone prints.
      expect(Buffer.concat(output.map((e) => e.data)).toString().trim()).toBe('3');
      expect(readFileSync(join(dir, 'log'), 'utf8')).toBe('run\nrun\nrun\n');
      expect(childrenOf(client.pid)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a prime run that fails does not hide the timed run; the count done is reported; out of range is a request error', async () => {
    const failing = await launch(client, { argv: ['sh', '-c', 'exit 3'], primes: 2 });
    expect(failing.find((e) => e.type === 'spawned')).toMatchObject({ primes: 0 });
    expect(failing.at(-1)).toMatchObject({ type: 'exit', exitCode: 3 });
    const events = await launch(client, { argv: ['true'], primes: 17 });
    expect(events[0]).toMatchObject({ type: 'spawn-failed', stage: 'request', message: expect.stringMatching(/prime count/) });
  });

  it('records prime runs in the timing facts only when asked', async () => {
    const running = spawnWithLauncher(client, { argv: ['true'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 10_000, primeRuns: 2 }, { path: 'launcher' });
    await running.exit;
    expect(running.timing).toMatchObject({ path: 'launcher', prime_runs: 2 });
  });

  it('records the warm-ups in the trial timing facts', async () => {
    const running = spawnWithLauncher(client, { argv: ['true'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 10_000 }, { path: 'launcher', floor_median_ms: 0.5 });
    await running.exit;
    expect(running.timing).toEqual({ path: 'launcher', floor_median_ms: 0.5, warmup_launches: WARMUP_LAUNCHES });
  });

  it('SANDBENCH_LAUNCH_WARMUPS overrides the count and names the variable when it is not 0..16', () => {
    const saved = process.env.SANDBENCH_LAUNCH_WARMUPS;
    try {
      process.env.SANDBENCH_LAUNCH_WARMUPS = '0';
      expect(launchWarmups()).toBe(0);
      process.env.SANDBENCH_LAUNCH_WARMUPS = 'lots';
      expect(() => launchWarmups()).toThrow(/SANDBENCH_LAUNCH_WARMUPS=lots: give a whole number from 0 to 16/);
    } finally {
      if (saved === undefined) delete process.env.SANDBENCH_LAUNCH_WARMUPS;
      else process.env.SANDBENCH_LAUNCH_WARMUPS = saved;
    }
  });
});
