/**
 * A harness killed with -9 while checkpoint children are alive: `sandbench clean --run <id>` must
 * remove every container, process, checkpoint image and frozen layer it left (real podman and docker
 * + CRIU, and staged; docker's checkpoint dirs live in its containers' directories). ~50 s.
 */
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { dockerCli } from '../../executors/docker.ts';
import { acquireDockerd, dockerdPaths } from '../../executors/dockerd-manager.ts';
import { PROJECT_ROOT, runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { sandbench } from '../support/cli.ts';
import { leftoversOf } from '../support/leftovers.ts';
import { processesWithRunId } from './checkpoint-context.ts';

/** The run's containers on the harness dockerd (parent + 2 children; each holds a checkpoint dir). */
async function dockerContainersOf(runId: string): Promise<string[]> {
  const listed = await execa(dockerCli(), ['-H', dockerdPaths(stateDir()).host, 'ps', '-a', '--filter', `label=sandbench.run_id=${runId}`, '--format', '{{.Names}}'], { reject: false });
  return listed.exitCode === 0 ? listed.stdout.split('\n').filter(Boolean) : [];
}

describe('checkpoint leftovers after kill -9', () => {
  it('clean removes podman and docker children and parents, relays, exports and staged frozen layers', async () => {
    // The killed holder's lease dies with it: when a docker test in another file then drops the last
    // live lease, the harness dockerd stops and its containers are out of `clean`'s sight until a
    // dockerd runs again. This test is about clean, not the daemon's lifetime: it holds a lease.
    const lease = await acquireDockerd({ stateDir: stateDir(), runId: 'kill-and-clean-test', cli: dockerCli(), log: () => undefined });
    try {
      await killAndClean();
    } finally {
      await lease.release();
    }
  }, 240_000);
});

/** The holder starts checkpoint children on every backend, dies by SIGKILL, and clean must find and remove what it left. */
async function killAndClean(): Promise<void> {
  const holder = execa('node', ['--import', 'tsx', 'test/checkpoint/hold-children.mts', 'podman', 'docker', 'staged'], { cwd: PROJECT_ROOT, reject: false, buffer: false, stdout: 'pipe', stderr: 'inherit' });
  const runId = await new Promise<string>((resolve, reject) => {
    let text = '';
    holder.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /HELD (\S+)/.exec(text);
      if (match) resolve(match[1]!);
    });
    void holder.then(() => reject(new Error(`holder exited before HELD: ${text}`)));
  });
  const before = await leftoversOf(runId);
  expect(before.some((line) => line.startsWith('podman container:'))).toBe(true);
  expect(await dockerContainersOf(runId)).toHaveLength(3);
  expect(existsSync(runScratchDir(stateDir(), runId))).toBe(true);
  // The harness dies without any cleanup.
  process.kill(holder.pid!, 'SIGKILL');
  await holder;
  const dry = await sandbench(['clean', '--dry-run', '--run', runId]);
  expect(dry.stdout).toMatch(/container podman\//);
  expect(dry.stdout).toMatch(/container docker\//);
  const clean = await sandbench(['clean', '--run', runId]);
  expect(clean.code).toBe(0);
  // Relays exit at end of input once their harness is gone; give them a moment.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(await leftoversOf(runId)).toEqual([]);
  expect(await dockerContainersOf(runId)).toEqual([]);
  expect(processesWithRunId(runId)).toEqual([]);
}
