/**
 * A disk that fills mid-run, for real: a small tmpfs mounted here holds the bundle (the journal
 * case) or the per-run scratch ($SANDBENCH_FIXTURES, the scratch case), and "another writer" fills
 * it while a host run is between trials. The run must end with the one-line `infrastructure: disk
 * full` message (path, free space, the resume command), exit 3, no stack trace, a journal without a
 * torn line; after the space is freed, `run --resume` finishes with every planned trial exactly once
 * and `verify` passes. Root mounts the filesystems; afterAll unmounts them, pass or fail.
 */
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { JournalWriter, readJournal } from '../../harness/journal/journal.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { SANDBENCH_BIN, sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { inflightTrial, journalCount, plannedIds, waitFor } from './fault-support.ts';

const TRIALS = 5;
const root = tempDir('sb-diskfull-');
const mounted: string[] = [];

/** A fresh tmpfs of `mib` MiB (a run refuses to start below 64 MiB free). */
async function smallFilesystem(name: string, mib: number): Promise<string> {
  const dir = join(root, name);
  mkdirSync(dir);
  await execa('mount', ['-t', 'tmpfs', '-o', `size=${mib}m,mode=0755`, `sb-diskfull-${name}`, dir]);
  mounted.push(dir);
  return dir;
}

afterAll(async () => {
  for (const dir of mounted.splice(0)) {
    const result = await execa('umount', [dir], { reject: false });
    // A process of a failed run may still hold it: detach it so the suite's mount check stays clean.
    if (result.exitCode !== 0) await execa('umount', ['-l', dir], { reject: false });
  }
});

/**
 * Another writer: appends to its own file until ENOSPC, and keeps doing so until stopped, so space
 * a run frees (a finished trial's workspace) is taken again before the run can reuse it.
 */
function fillAndHold(dir: string): { filled: Promise<void>; stop: () => Promise<void> } {
  const path = join(dir, 'other-writer.bin');
  const chunk = Buffer.alloc(64 * 1024, 0x5a);
  let running = true;
  let firstFull: () => void = () => {};
  const filled = new Promise<void>((resolve) => (firstFull = resolve));
  const fillOnce = () => {
    const fd = openSync(path, 'a');
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
    // Then the last partial page: a 4 KiB page of slack would let a short journal line through.
    const small = openSync(path, 'a');
    try {
      for (;;) writeSync(small, Buffer.alloc(512, 0x5a));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(small);
    }
  };
  const loop = (async () => {
    while (running) {
      fillOnce();
      firstFull();
      await sleep(5);
    }
  })();
  return {
    filled,
    stop: async () => {
      running = false;
      await loop;
      rmSync(path, { force: true });
    },
  };
}

function writeSpec(dir: string): string {
  const path = join(dir, 'spec.yaml');
  // The task empties its workspace and waits: what it held is taken by the other writer meanwhile, so
  // the next trial's workspace copy (the repair fixture, 40 KiB) finds no space on a full scratch disk.
  writeFileSync(
    path,
    `name: disk-full
experiment: command
arms: [{ backend: host }]
warmups: 0
trials: ${TRIALS}
seed: 36
timeout: 30s
resamples: 200
task:
  argv: ["/bin/sh", "-c", "echo READY; rm -rf ./* ./.[!.]*; sleep 1"]
  ready_marker: READY
  workspace: data/fixtures/repair
`,
  );
  return path;
}

/** Journal line ids, asserting the journal reads cleanly (no torn or malformed line). */
function journalIds(bundle: string): string[] {
  const journal = readJournal(join(bundle, 'journal.jsonl'));
  expect(journal.tornTail).toBeNull();
  return journal.records.map((record) => record.trial_id);
}

async function resumeAndCheck(bundle: string, env: Record<string, string>): Promise<void> {
  const resumed = await sandbench(['run', '--resume', bundle], { env });
  expect(resumed.code, resumed.stderr).toBe(0);
  const ids = journalIds(bundle);
  expect(ids.slice().sort()).toEqual(plannedIds(bundle).slice().sort());
  expect(new Set(ids).size).toBe(ids.length);
  const verified = await sandbench(['verify', bundle]);
  expect(verified.code, verified.stdout).toBe(0);
}

function expectDiskFullMessage(stderr: string, pathPrefix: string, bundle: string): void {
  expect(stderr).toMatch(new RegExp(`sandbench: infrastructure: disk full: ${pathPrefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\S* \\(\\d+ KiB free of 80\\.0 MiB\\)`));
  expect(stderr).toContain(`sandbench run --resume ${bundle}`);
  expect(stderr).not.toContain('internal error');
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('disk full mid-run', () => {
  it('a journal append that does not fit leaves no part of its line behind', async () => {
    const fs = await smallFilesystem('journal-fs', 1);
    const writer = new JournalWriter(join(fs, 'journal.jsonl'));
    const record = (i: number): TrialRecord => ({
      run_id: 'r', schema_version: TRIAL_SCHEMA_VERSION, experiment: 'command', arm: { backend: 'host', variant: null }, block: i, position: i,
      trial_id: `b${i}`, warmup: false, seed: i, outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: '0',
      ready_ms: 1, result_ms: null, completion_ms: 2, metrics: {}, validity: {}, facts: { pad: 'x'.repeat(3000 + (i % 7) * 111) }, notes: [],
    });
    let appended = 0;
    let failure: unknown = null;
    try {
      // Lines of uneven length, so the one that fails is cut part-way through a page (a short write).
      for (; appended < 10_000; appended++) writer.append(record(appended));
    } catch (error) {
      failure = error;
    } finally {
      writer.close();
    }
    expect((failure as NodeJS.ErrnoException).code).toBe('ENOSPC');
    const journal = readJournal(join(fs, 'journal.jsonl'));
    expect(journal.tornTail).toBeNull();
    expect(journal.records.map((r) => r.trial_id)).toEqual(Array.from({ length: appended }, (_, i) => `b${i}`));
  });

  it('the bundle\'s filesystem (journal): exit 3, one line, resumable; resume finishes every trial once', async () => {
    const fs = await smallFilesystem('bundle-fs', 80);
    const bundle = join(fs, 'bundle');
    const spec = writeSpec(root);
    const child = execa('node', [SANDBENCH_BIN, 'run', spec, '--out', bundle], { reject: false });
    await waitFor(() => journalCount(bundle) >= 2 && inflightTrial(bundle) !== null, 120_000, 'two journaled trials and a third in flight');
    const writer = fillAndHold(fs);
    await writer.filled;
    const result = await child;
    await writer.stop();
    expect(result.exitCode, result.stderr).toBe(3);
    expectDiskFullMessage(result.stderr, bundle, bundle);
    const ids = journalIds(bundle);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(ids.length).toBeLessThan(TRIALS);
    await resumeAndCheck(bundle, {});
  }, 300_000);

  it('the scratch filesystem: the trial in flight is marked, not journaled as a failure; resume finishes', async () => {
    const scratch = await smallFilesystem('scratch-fs', 80);
    const bundle = join(root, 'scratch-bundle');
    const spec = writeSpec(root);
    const env = { SANDBENCH_FIXTURES: scratch };
    const child = execa('node', [SANDBENCH_BIN, 'run', spec, '--out', bundle], { reject: false, env: { ...process.env, ...env } });
    await waitFor(() => journalCount(bundle) >= 1 && inflightTrial(bundle) !== null, 120_000, 'a journaled trial and a second in flight');
    const writer = fillAndHold(scratch);
    await writer.filled;
    const result = await child;
    await writer.stop();
    expect(result.exitCode, result.stderr).toBe(3);
    expectDiskFullMessage(result.stderr, scratch, bundle);
    const ids = journalIds(bundle);
    const marked = inflightTrial(bundle);
    expect(result.stderr).toContain(`trial ${marked} was in flight and is marked to re-run`);
    expect(ids).not.toContain(marked);
    // No trial was journaled as a setup failure for lack of space.
    expect(readJournal(join(bundle, 'journal.jsonl')).records.every((record) => record.outcome === 'ok')).toBe(true);
    // The run released its scratch on the way out.
    expect(readdirSync(scratch).filter((name) => name.startsWith('sandbench-'))).toEqual([]);
    await resumeAndCheck(bundle, env);
    expect(existsSync(join(bundle, 'interrupted.jsonl'))).toBe(true);
  }, 300_000);
});
