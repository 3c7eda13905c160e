/**
 * Lifecycle: the launcher's timeout kills the whole process group; a launcher killed mid-trial fails
 * the trial (recording_failed) with its tree killed and no orphan left, and later launches fail fast.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { locateLauncher } from '../../executors/launch/launcher-binary.ts';
import { LauncherClient } from '../../executors/launch/launcher-client.ts';
import { spawnWithLauncher } from '../../executors/launch/launcher-spawn.ts';

const PATH = '/usr/bin:/bin';
const timing = { path: 'launcher' as const };

async function startClient(): Promise<LauncherClient> {
  const binary = await locateLauncher();
  if (!binary.ok) throw new Error(binary.reason);
  return LauncherClient.start(binary.path);
}

/** Live (non-zombie) processes whose argv carries the marker. */
function alive(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(marker) && !line.includes('ps -eo') && !line.trim().startsWith('Z'));
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('launcher lifecycle', () => {
  it('a timeout signals the whole group: a backgrounded grandchild dies too', async () => {
    const client = await startClient();
    try {
      const marker = `sandbench-lt-${process.pid}-timeout`;
      const running = spawnWithLauncher(client, { argv: ['sh', '-c', `sleep 300 & sleep 301; : ${marker}`], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 300 }, timing);
      const started = Date.now();
      const exit = await running.exit;
      expect(exit.timedOut).toBe(true);
      expect(exit.signal).toBe('SIGTERM');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await waitFor(() => alive(marker).length === 0 && alive('sleep 300').filter((l) => l.includes(marker)).length === 0, 3_000)).toBe(true);
      // The background `sleep 300` has no marker in its argv: find it by its group instead.
      const pgid = running.rootPids()[0]!;
      const members = execFileSync('ps', ['-eo', 'pgid=,stat='], { encoding: 'utf8' }).split('\n').filter((l) => l.trim().startsWith(`${pgid} `) && !l.trim().endsWith('Z'));
      expect(members).toEqual([]);
    } finally {
      await client.stop();
    }
  });

  it('a killed launcher fails the trial in flight, kills its tree, leaves no orphan, and refuses later launches', async () => {
    const client = await startClient();
    const marker = `sandbench-lt-${process.pid}-orphan`;
    const running = spawnWithLauncher(client, { argv: ['sh', '-c', `sleep 300 & echo READY; sleep 302; : ${marker}`], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 60_000 }, timing);
    await new Promise<void>((resolve) => running.onLine((line) => line.text === 'READY' && resolve()));
    const pgid = running.rootPids()[0]!;
    process.kill(client.processPid!, 'SIGKILL');
    const exit = await running.exit;
    expect(exit.infraFailure?.category).toBe('recording_failed');
    expect(exit.infraFailure?.reason).toMatch(/sandbench-launch died \(killed by SIGKILL\)/);
    const groupAlive = () => execFileSync('ps', ['-eo', 'pgid=,stat='], { encoding: 'utf8' }).split('\n').some((l) => l.trim().startsWith(`${pgid} `) && !l.trim().endsWith('Z') && !/\sZ/.test(l));
    expect(await waitFor(() => !groupAlive() && alive(marker).length === 0, 3_000)).toBe(true);
    expect(client.alive).toBe(false);
    const later = spawnWithLauncher(client, { argv: ['true'], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 10_000 }, timing);
    const laterExit = await later.exit;
    expect(laterExit.infraFailure?.reason).toMatch(/not launched: sandbench-launch it died earlier in this run/);
  });

  it('EOF on its stdin (the harness exited) makes the launcher kill what it runs and exit', async () => {
    const client = await startClient();
    const marker = `sandbench-lt-${process.pid}-eof`;
    const running = spawnWithLauncher(client, { argv: ['sh', '-c', `echo READY; sleep 303; : ${marker}`], env: { PATH }, clearEnv: true, stdin: 'none', timeoutMs: 60_000 }, timing);
    await new Promise<void>((resolve) => running.onLine((line) => line.text === 'READY' && resolve()));
    await client.stop();
    await running.exit;
    expect(await waitFor(() => alive(marker).length === 0, 3_000)).toBe(true);
  });
});
