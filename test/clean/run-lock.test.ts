import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dirs.ts';
import { acquireRunLock, liveRunIdsOnMachine, liveRunsDir, readRunLocks, runLocksDir } from '../../harness/run/run-lock.ts';

describe('run lock', () => {
  it('is live while held, dead once released, for a dead or recycled pid, and when torn', () => {
    const home = tempDir('sandbench-lock-');
    const release = acquireRunLock(home, 'r-live');
    expect(readRunLocks(home)).toEqual([expect.objectContaining({ runId: 'r-live', pid: process.pid, alive: true })]);
    release();
    expect(readRunLocks(home)).toEqual([]);
    mkdirSync(runLocksDir(home), { recursive: true });
    // pid 2^22+1 is above Linux's pid_max ceiling: never a live process.
    writeFileSync(join(runLocksDir(home), 'sandbench-r-dead.json'), JSON.stringify({ run_id: 'r-dead', pid: 4194305, start_ticks: '1' }));
    // Our pid with another start time: the pid was recycled, the holder is gone.
    writeFileSync(join(runLocksDir(home), 'sandbench-r-recycled.json'), JSON.stringify({ run_id: 'r-recycled', pid: process.pid, start_ticks: '1' }));
    writeFileSync(join(runLocksDir(home), 'sandbench-r-torn.json'), '{"run_id": "r-to');
    const states = Object.fromEntries(readRunLocks(home).map((lock) => [lock.runId, lock.alive]));
    expect(states).toEqual({ 'r-dead': false, 'r-recycled': false, 'r-torn': false });
  });

  it('is visible machine-wide: a clean on another state dir sees the run as live, and a dead holder drops out', () => {
    const saved = process.env.SANDBENCH_LIVE_RUNS;
    process.env.SANDBENCH_LIVE_RUNS = tempDir('sandbench-live-test-');
    try {
      const homeA = tempDir('sandbench-lock-a-');
      const homeB = tempDir('sandbench-lock-b-');
      const release = acquireRunLock(homeA, 'r-elsewhere');
      expect(readRunLocks(homeB)).toEqual([]);
      expect(liveRunIdsOnMachine().has('r-elsewhere')).toBe(true);
      writeFileSync(join(liveRunsDir(), 'sandbench-r-gone.json'), JSON.stringify({ run_id: 'r-gone', pid: 4194305, start_ticks: '1' }));
      expect(liveRunIdsOnMachine().has('r-gone')).toBe(false);
      release();
      expect(liveRunIdsOnMachine().has('r-elsewhere')).toBe(false);
    } finally {
      if (saved === undefined) delete process.env.SANDBENCH_LIVE_RUNS;
      else process.env.SANDBENCH_LIVE_RUNS = saved;
    }
  });
});
