/** The launcher's wire format, then a real round trip through the compiled co-process. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { locateLauncher } from '../../executors/launch/launcher-binary.ts';
import { LauncherClient } from '../../executors/launch/launcher-client.ts';
import { EventDecoder, encodeSpawn } from '../../executors/launch/launcher-protocol.ts';
import { spawnWithLauncher } from '../../executors/launch/launcher-spawn.ts';
import { releaseBarrier } from '../../executors/launch/barrier.ts';
import { calibrate } from '../../executors/launch/timing-session.ts';

const timing = { path: 'launcher' as const };
const PATH = '/usr/bin:/bin';

describe('launcher protocol framing', () => {
  it('decodes events split at any byte, binary payloads intact', () => {
    const payload = Buffer.from([0, 10, 255, 32, 10]);
    const wire = Buffer.concat([Buffer.from('S 7 100 4242 150 0\n'), Buffer.from(`O 7 200 2 0 ${payload.length}\n`), payload, Buffer.from('X 7 300 2 9 0\n')]);
    for (let cut = 1; cut < wire.length; cut++) {
      const decoder = new EventDecoder();
      const events = [...decoder.push(wire.subarray(0, cut)), ...decoder.push(wire.subarray(cut))];
      expect(events.map((e) => e.type)).toEqual(['spawned', 'output', 'exit']);
      expect(events[0]).toMatchObject({ id: 7, pid: 4242, tNs: 100n, tForkReturnNs: 150n });
      expect(events[1]).toMatchObject({ stream: 'stderr', tNs: 200n });
      expect((events[1] as { data: Buffer }).data.equals(payload)).toBe(true);
      expect(events[2]).toMatchObject({ exitCode: null, signal: 9 });
    }
  });

  it('refuses argv or env that cannot be framed, naming the field', () => {
    expect(() => encodeSpawn(1, { argv: ['a\0b'], env: {}, stdin: 'none' })).toThrow(/argv value contains a NUL/);
    expect(() => encodeSpawn(1, { argv: ['true'], env: { 'A=B': 'c' }, stdin: 'none' })).toThrow(/"A=B" contains "="/);
  });
});

describe('launcher round trip', () => {
  let client: LauncherClient;
  let dir: string;
  beforeAll(async () => {
    const binary = await locateLauncher();
    if (!binary.ok) throw new Error(binary.reason);
    client = await LauncherClient.start(binary.path);
    dir = mkdtempSync(join(tmpdir(), 'sandbench-launcher-'));
  });
  afterAll(async () => {
    await client?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs argv with exactly the given env and cwd, stamps lines between spawn and exit, returns the exit code', async () => {
    const running = spawnWithLauncher(client, { argv: ['sh', '-c', 'echo "$FOO $(pwd)"; echo e >&2; printf tail; exit 3'], env: { PATH, FOO: 'bar' }, clearEnv: true, cwd: dir, stdin: 'none', timeoutMs: 10_000 }, timing);
    await running.started;
    const exit = await running.exit;
    expect(exit.exitCode).toBe(3);
    expect(running.lines.map((l) => [l.stream, l.text])).toEqual(expect.arrayContaining([['stdout', `bar ${dir}`], ['stderr', 'e'], ['stdout', 'tail']]));
    for (const line of running.lines) {
      expect(line.tNs).toBeGreaterThan(running.tSpawnNs);
      expect(line.tNs).toBeLessThanOrEqual(exit.tExitNs);
    }
    // Same clock as process.hrtime: the launcher's pre-vfork stamp is in this process's recent past.
    const now = process.hrtime.bigint();
    expect(running.tSpawnNs).toBeLessThan(now);
    expect(now - running.tSpawnNs).toBeLessThan(60_000_000_000n);
  });

  it('gives the task socket pairs on fds 0–2, as Node does (qemu attaches a chardev to fd 2)', async () => {
    const running = spawnWithLauncher(client, { argv: ['sh', '-c', 'readlink /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2'], env: { PATH }, clearEnv: true, stdin: 'pipe', timeoutMs: 10_000 }, timing);
    running.closeStdin();
    expect((await running.exit).exitCode).toBe(0);
    expect(running.lines.map((l) => l.text.replace(/\d+/, 'N'))).toEqual(['socket:[N]', 'socket:[N]', 'socket:[N]']);
  });

  it('carries stdin writes and close, and reports a missing binary as an exec failure', async () => {
    const cat = spawnWithLauncher(client, { argv: ['cat'], env: { PATH }, clearEnv: true, stdin: 'pipe', timeoutMs: 10_000 }, timing);
    cat.writeStdin('one\n');
    cat.writeStdin('two\n');
    cat.closeStdin();
    expect((await cat.exit).exitCode).toBe(0);
    expect(cat.lines.map((l) => l.text)).toEqual(['one', 'two']);

    const missing = spawnWithLauncher(client, { argv: ['sandbench-no-such-tool'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 10_000 }, timing);
    const exit = await missing.exit;
    expect(exit.exitCode).toBeNull();
    expect(exit.infraFailure).toBeUndefined();
    expect(missing.lines[0]?.text).toMatch(/exec sandbench-no-such-tool: No such file or directory/);
  });

  it('releases a barrier to many stdin pipes in one loop and reports every write stamp', async () => {
    const workers = Array.from({ length: 8 }, () => spawnWithLauncher(client, { argv: ['sh', '-c', 'read x; echo "got $x"'], env: { PATH }, clearEnv: true, stdin: 'pipe', timeoutMs: 10_000 }, timing));
    await Promise.all(workers.map((w) => w.started));
    const release = await client.barrier(workers.map((w) => client.byPid(w.rootPids()[0]!)!), 'GO\n');
    expect(release.writes).toHaveLength(8);
    expect(release.writes.every((w) => w.errno === 0)).toBe(true);
    expect(release.tLastNs).toBeGreaterThanOrEqual(release.tFirstNs);
    await Promise.all(workers.map((w) => w.exit));
    expect(workers.map((w) => w.lines.map((l) => l.text))).toEqual(workers.map(() => ['got GO']));
  });

  it('holds a silent launch’s spawn event up to 20 ms, not one with a stdin pipe', async () => {
    // How long after the launcher's pre-vfork stamp the harness hears of a spawn, for a launch that
    // prints nothing for 300 ms. One at a time: a held buffer goes at its earliest deadline, so a
    // pipe launch's spawn in the same buffer would carry the silent one's along.
    const spawnHeardAfterMs = async (stdin: 'pipe' | 'none'): Promise<number> => {
      let heardNs = 0n;
      let stampNs = 0n;
      const exited = new Promise<void>((resolve) => {
        client.spawn({ argv: ['sleep', '0.3'], env: { PATH }, cwd: dir, stdin, timeoutMs: 10_000 }, {
          onEvent(event) {
            if (event.type === 'spawned') [heardNs, stampNs] = [process.hrtime.bigint(), event.tNs];
            if (event.type === 'exit' || event.type === 'spawn-failed') resolve();
          },
          onLauncherDeath: () => resolve(),
        });
      });
      await exited;
      return Number(heardNs - stampNs) / 1e6;
    };
    const silent: number[] = [];
    const piped: number[] = [];
    for (let i = 0; i < 3; i++) {
      silent.push(await spawnHeardAfterMs('none'));
      piped.push(await spawnHeardAfterMs('pipe'));
    }
    // The launcher holds the silent spawn at least 20 ms after it stamped it: a floor, whatever the load.
    expect(Math.min(...silent)).toBeGreaterThanOrEqual(20);
    // Held, not kept to the exit 300 ms later.
    expect(Math.max(...silent)).toBeLessThan(250);
    // A pipe launch's spawn is held 1 ms; the least of three stays under the silent floor even on a loaded machine.
    expect(Math.min(...piped)).toBeLessThan(20);
  });

  it('calibrates a no-op floor: n, median and MAD from real launches', async () => {
    const calibration = await calibrate(client, 10, 2);
    expect(calibration.n).toBe(10);
    expect(calibration.failures).toBe(0);
    expect(calibration.medianMs).toBeGreaterThan(0);
    expect(calibration.madMs).toBeGreaterThanOrEqual(0);
    expect(calibration.samplesMs).toHaveLength(10);
  });
});

describe('barrier helper without a launcher session', () => {
  it('falls back to Node writes and still stamps each one', async () => {
    const targets = [1, 2].map(() => {
      const written: string[] = [];
      return { written, trial: { rootPids: () => [], writeStdin: (t: string) => written.push(t) } };
    });
    const release = await releaseBarrier(targets.map((t) => t.trial as never), 'GO\n');
    expect(release.path).toBe('node');
    expect(release.writes.every((w) => w.ok)).toBe(true);
    expect(targets.map((t) => t.written)).toEqual([['GO\n'], ['GO\n']]);
    expect(release.skewMs).toBeGreaterThanOrEqual(0);
  });
});
