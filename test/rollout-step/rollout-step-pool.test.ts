/**
 * The warm pool's bookkeeping (which task it starts a sandbox for, hits and misses, retiring a
 * sandbox nobody will claim). The sandboxes here are stand-ins that print the waiter's marker on
 * demand: the pool's decisions are what is under test; the smoke test runs it on real backends.
 */
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import type { OutputLine, RunningTrial } from '../../harness/contracts/executor.ts';
import type { RolloutTask } from '../../experiments/rollout/task-contract.ts';
import { POOL_READY_MARKER, pooledCommand, WarmPool, type PoolEntry } from '../../experiments/rollout-step/warm-pool.ts';

const task = (id: string) => ({ id }) as RolloutTask;

function standIn(): { running: RunningTrial; ready(): void } {
  const listeners: ((line: OutputLine) => void)[] = [];
  const lines: OutputLine[] = [];
  const running = {
    tSpawnNs: 0n, lines, exit: new Promise(() => undefined),
    onLine: (listener: (line: OutputLine) => void) => { listeners.push(listener); lines.forEach(listener); },
    writeStdin: () => undefined, closeStdin: () => undefined, kill: async () => undefined, rootPids: () => [],
  } as unknown as RunningTrial;
  return { running, ready: () => { const line = { stream: 'stdout' as const, text: POOL_READY_MARKER, tNs: 0n }; lines.push(line); listeners.forEach((l) => l(line)); } };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('warm pool', () => {
  it('starts for upcoming demand, counts hits and misses, and retires a sandbox no attempt will claim', async () => {
    const demand = [task('A'), task('A'), task('B')];
    const started: { task: string; ready(): void }[] = [];
    const released: string[] = [];
    const pool = new WarmPool(
      1,
      async (t, id) => {
        const s = standIn();
        started.push({ task: t.id, ready: s.ready });
        return { id, task: t, running: s.running, ready: false } as unknown as PoolEntry;
      },
      () => demand,
      async (entry) => (released.push(entry.task.id), entry.task.id === 'A' ? 5 : 7),
    );
    const filled = pool.fill(5_000);
    await tick();
    started[0]!.ready();
    await filled;
    expect(started.map((s) => s.task)).toEqual(['A']);

    demand.shift(); // the first attempt is taken: its claim finds A ready
    expect(pool.claim(task('A'))?.task.id).toBe('A');
    await tick();
    expect(started.map((s) => s.task)).toEqual(['A', 'A']); // replenished for the next A

    demand.shift(); // the second A is taken before its sandbox is ready: a miss
    expect(pool.claim(task('A'))).toBeNull();
    started[1]!.ready();
    await tick();
    pool.replenish(); // only B is left: the ready A is surplus, retired, and B gets a start
    await tick();
    expect(released).toEqual(['A']);
    expect(started.map((s) => s.task)).toEqual(['A', 'A', 'B']);
    expect(pool.counts).toMatchObject({ claims: 2, hits: 1, misses: 1, retired: 1 });
    started[2]!.ready();
    await tick();
    await pool.close();
    expect(pool.counts.unused).toBe(1);
    expect(released).toEqual(['A', 'B']);
    expect(pool.counts.unclaimedCpuMs, 'the retired A and the unused B: the pool\'s waste').toBe(12);
  });

  it('the pooled command waits for the route on stdin and keeps the attempt command behind it', () => {
    const command = pooledCommand({ argv: ['/bin/sh', 'entry.sh', 'builtin', 'fix it'], env: { SANDBENCH_MODEL_ROUTE: '/t/x/a/y', OTHER: '1' }, stdin: 'none' });
    expect(command.stdin).toBe('pipe');
    expect(command.env).toEqual({ OTHER: '1' });
    expect(command.argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    expect(command.argv.slice(3)).toEqual(['sh', '/bin/sh', 'entry.sh', 'builtin', 'fix it']);
  });

  it('the waiter, run by /bin/sh, prints its marker, then execs the command with the route it read', async () => {
    const command = pooledCommand({ argv: ['/bin/sh', '-c', 'printf "%s|%s" "$SANDBENCH_MODEL_ROUTE" "$1"', 'sh', 'fix it'], env: {}, stdin: 'none' });
    const { stdout } = await execa(command.argv[0]!, command.argv.slice(1), { input: '/t/task/a/attempt-1\n' });
    expect(stdout).toBe(`${POOL_READY_MARKER}\n/t/task/a/attempt-1|fix it`);
  });
});
