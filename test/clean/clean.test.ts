/**
 * `sandbench clean` through the real CLI on real processes and directories: it lists and removes
 * a dead run's orphaned trial process and scratch dir, and never touches a live run (lock held by
 * this process) or anything not named by sandbench. Scoped with --run, so parallel test files'
 * runs are never in play.
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { acquireRunLock } from '../../harness/run/run-lock.ts';
import { runIdIn } from '../../harness/clean/run-ids.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { sandbench } from '../support/cli.ts';

const stamp = `${Date.now().toString(36)}`;
const deadId = `20261130T000000Z-cleantest-dead-${stamp}`;
const liveId = `20261130T000000Z-cleantest-live-${stamp}`;
const scratch = (id: string) => runScratchDir(stateDir(), id);

/** A process re-parented away from us (double fork), like a trial tree after kill -9 of its harness. */
async function orphanSleeping(cwd: string, seconds: number, env: Record<string, string> = {}): Promise<number> {
  const result = await execa('sh', ['-c', `cd "$1" && (sleep ${seconds} >/dev/null 2>&1 & echo $!)`, 'sh', cwd], { env });
  return Number(result.stdout.trim());
}

/** Running (a killed orphan may linger as a zombie until pid 1 reaps it: that counts as dead). */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

const cleanup: (() => void)[] = [];
afterAll(() => cleanup.forEach((fn) => fn()));

describe('sandbench clean', () => {
  it('reads run ids from names: known ids first (longest), generated ids by shape', () => {
    expect(runIdIn('sandbench-r1-b0000-host', ['r1', 'r1-b0000'])).toBe('r1-b0000');
    expect(runIdIn('-name sandbench-20261130T133518Z-ck-1sbs-b0001-qemu', [])).toBe('20261130T133518Z-ck-1sbs');
    expect(runIdIn('sandbench-task', [])).toBeNull();
  });

  it('removes a dead run\'s orphan and scratch dir; leaves a live run and foreign processes alone', async () => {
    for (const id of [deadId, liveId]) mkdirSync(join(scratch(id), 'trial', 'workspace'), { recursive: true });
    cleanup.push(() => [deadId, liveId].forEach((id) => rmSync(scratch(id), { recursive: true, force: true })));
    const releaseLock = acquireRunLock(stateDir(), liveId);
    cleanup.push(releaseLock);
    const deadPid = await orphanSleeping(join(scratch(deadId), 'trial', 'workspace'), 120);
    const livePid = await orphanSleeping(join(scratch(liveId), 'trial', 'workspace'), 120);
    const foreignDir = join(stateDir(), 'tmp', `not-sandbench-${stamp}`);
    mkdirSync(foreignDir, { recursive: true });
    const foreignPid = await orphanSleeping(foreignDir, 120);
    // A helper that names nothing in argv or cwd, tagged only by SANDBENCH_RUN_ID (lazy client's sleep).
    const taggedPid = await orphanSleeping(foreignDir, 121, { SANDBENCH_RUN_ID: deadId });
    cleanup.push(() => [deadPid, livePid, foreignPid, taggedPid].forEach((pid) => alive(pid) && process.kill(pid, 'SIGKILL')));
    cleanup.push(() => rmSync(foreignDir, { recursive: true, force: true }));

    const dry = await sandbench(['clean', '--dry-run', '--run', deadId]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout.split('\n').filter(Boolean).sort()).toEqual([`process ${deadPid} ${deadId}`, `process ${taggedPid} ${deadId}`, `tempdir ${scratch(deadId)} ${deadId}`].sort());
    // The live run is invisible even when asked for by id: its lock has a live holder (this process).
    expect((await sandbench(['clean', '--dry-run', '--run', liveId])).stdout).toBe('');
    expect(alive(deadPid)).toBe(true);

    const real = await sandbench(['clean', '--run', deadId]);
    expect(real.code, real.stderr).toBe(0);
    await sleep(100);
    expect(alive(deadPid)).toBe(false);
    expect(alive(taggedPid)).toBe(false);
    expect(existsSync(scratch(deadId))).toBe(false);
    expect(alive(livePid)).toBe(true);
    expect(existsSync(scratch(liveId))).toBe(true);
    expect(alive(foreignPid)).toBe(true);
    expect(existsSync(foreignDir)).toBe(true);

    // Once the live run's holder is gone, its leftovers (and stale lock) are fair game.
    releaseLock();
    const after = (await sandbench(['clean', '--dry-run', '--run', liveId])).stdout;
    expect(after).toContain(`process ${livePid} ${liveId}`);
    expect((await sandbench(['clean', '--run', liveId])).code).toBe(0);
    expect((await sandbench(['clean', '--dry-run', '--run', liveId])).stdout).toBe('');
  }, 120_000);

  it('--dry-run prints nothing at all when there is nothing; a bad --run is exit 2', async () => {
    const none = await sandbench(['clean', '--dry-run', '--run', `no-such-run-${stamp}`]);
    expect(none).toMatchObject({ code: 0, stdout: '' });
    const bad = await sandbench(['clean', '--dry-run', '--run', '../etc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--run');
  }, 60_000);
});
