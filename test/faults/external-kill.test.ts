/**
 * A sandbox killed from outside mid-trial (`podman kill`, SIGKILL to the qemu process) must end
 * the trial promptly as a categorized failure — never a hang until the timeout — and leave
 * nothing behind. QEMU runs only where installed (TCG here: the kill lands during boot or task).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import { INFRASTRUCTURE_FAILURES } from '../../harness/journal/trial-record.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { dockerdPaths } from '../../executors/dockerd-manager.ts';
import { SANDBENCH_BIN, sandbench } from '../support/cli.ts';
import { leftoverLines, runIdOf, waitFor } from './fault-support.ts';
import { tempDir } from '../support/temp-dirs.ts';

function spec(dir: string, backend: string): string {
  const path = join(dir, 'spec.yaml');
  // A 5 minute timeout: a trial that only ends by timing out would fail the "promptly" check below.
  writeFileSync(path, `name: fault-external
experiment: command
arms: [{ backend: ${backend} }]
warmups: 0
trials: 1
seed: 1
timeout: 5m
task: { argv: ["/bin/sh", "-c", "echo READY; sleep 600"], ready_marker: READY }
`);
  return path;
}

function qemuPid(runId: string): number | null {
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.startsWith('qemu-system') && cmdline.includes(`sandbench-${runId}`)) return Number(entry);
    } catch {
      // gone
    }
  }
  return null;
}

async function podmanContainer(runId: string): Promise<string | null> {
  const result = await execa('podman', ['ps', '--filter', `label=sandbench.run_id=${runId}`, '--filter', 'status=running', '--format', '{{.Names}}'], { reject: false });
  return result.stdout.trim().split('\n')[0] || null;
}

const hasQemu = (await execa('qemu-system-x86_64', ['--version'], { reject: false })).exitCode === 0;

async function killFromOutside(backend: string, strike: (runId: string) => Promise<boolean>) {
  const dir = tempDir('sandbench-extkill-');
  const bundle = join(dir, 'bundle');
  const child = execa('node', [SANDBENCH_BIN, 'run', spec(dir, backend), '--out', bundle], { reject: false });
  let runId = '';
  await waitFor(() => {
    try {
      runId = runIdOf(bundle);
      return true;
    } catch {
      return false;
    }
  }, 120_000, 'resolved-spec.json');
  const deadline = Date.now() + 240_000;
  while (!(await strike(runId))) {
    if (Date.now() > deadline) throw new Error(`${backend}: the sandbox never appeared`);
    await sleep(200);
  }
  const killedAt = Date.now();
  const result = await child;
  const afterKillMs = Date.now() - killedAt;
  // Exit 4: the run finished but an arm has no valid trial (the one trial failed, as it must here).
  expect(result.exitCode, result.stderr).toBe(4);
  const records = readJournal(join(bundle, 'journal.jsonl')).records;
  expect(records).toHaveLength(1);
  return { record: records[0]!, afterKillMs, runId };
}

describe('sandbox killed from outside mid-trial', () => {
  it('podman kill: killed_externally (infrastructure, not task_failed), promptly, nothing left', async () => {
    const { record, afterKillMs, runId } = await killFromOutside('podman', async (id) => {
      const name = await podmanContainer(id);
      if (!name) return false;
      await sleep(500);
      return (await execa('podman', ['kill', name], { reject: false })).exitCode === 0;
    });
    console.log(`podman kill: outcome ${record.outcome}/${record.failure_category}, run ended ${afterKillMs} ms after the kill; notes: ${record.notes.join(' | ')}`);
    expect(record.outcome).toBe('failed');
    expect(record.failure_category).toBe('killed_externally');
    expect(INFRASTRUCTURE_FAILURES.has(record.failure_category!)).toBe(true);
    expect(record.notes.join(' ')).toMatch(/podman logged a kill of container .* the harness did not send/);
    expect(afterKillMs).toBeLessThan(60_000);
    expect(await leftoverLines(runId)).toEqual([]);
  }, 300_000);

  it('docker kill: killed_externally too (the private dockerd\'s event log)', async () => {
    const host = process.env.DOCKER_HOST ?? `unix://${dockerdPaths(stateDir()).socket}`;
    const { record, runId } = await killFromOutside('docker', async (id) => {
      const ps = await execa('docker', ['-H', host, 'ps', '--filter', `label=sandbench.run_id=${id}`, '--filter', 'status=running', '--format', '{{.Names}}'], { reject: false });
      const name = ps.stdout.trim().split('\n')[0];
      if (!name) return false;
      await sleep(500);
      return (await execa('docker', ['-H', host, 'kill', name], { reject: false })).exitCode === 0;
    });
    console.log(`docker kill: outcome ${record.outcome}/${record.failure_category}; notes: ${record.notes.join(' | ')}`);
    expect(record.failure_category).toBe('killed_externally');
    expect(record.notes.join(' ')).toMatch(/docker logged a kill of container/);
    expect(await leftoverLines(runId)).toEqual([]);
  }, 300_000);

  it('a task that dies of its own SIGKILL stays task_failed (the engine logged no kill)', async () => {
    const dir = tempDir('sandbench-selfkill-');
    const path = join(dir, 'spec.yaml');
    writeFileSync(path, 'name: fault-selfkill\nexperiment: command\narms: [{ backend: podman }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 2m\ntask: { argv: ["/bin/sh", "-c", "/bin/sh -c \'kill -9 $$\'; exit $?"] }\n');
    const run = await sandbench(['run', path, '--out', join(dir, 'bundle')]);
    expect(run.code, run.stderr).toBe(4);
    const [record] = readJournal(join(dir, 'bundle', 'journal.jsonl')).records;
    expect(record!.exit_code).toBe(137);
    expect(record!.failure_category).toBe('task_failed');
  }, 180_000);

  it.skipIf(!hasQemu)('kill -9 of the qemu process: the trial fails with a category, promptly, nothing left', async () => {
    let seenAt = 0;
    const { record, afterKillMs, runId } = await killFromOutside('qemu-microvm', async (id) => {
      const pid = qemuPid(id);
      if (pid === null) return false;
      seenAt ||= Date.now();
      // Strike a few seconds into the VM's life (TCG boot), when the harness is waiting on it.
      if (Date.now() - seenAt < 3000) return false;
      process.kill(pid, 'SIGKILL');
      return true;
    });
    console.log(`qemu kill: outcome ${record.outcome}/${record.failure_category}, run ended ${afterKillMs} ms after the kill; notes: ${record.notes.join(' | ')}`);
    expect(record.outcome).toBe('failed');
    expect(record.failure_category).not.toBeNull();
    expect(record.failure_category).not.toBe('timeout');
    expect(afterKillMs).toBeLessThan(60_000);
    expect(await leftoverLines(runId)).toEqual([]);
  }, 300_000);
});
