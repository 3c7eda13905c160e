/**
 * The conformance properties catch what they claim to: each case is the host executor broken in one
 * way (a lie in its traits, a leaked process, a staging claim over the baseline itself, a launch that
 * states no timing path) and the property that owns it must fail, naming what it saw. Host trials
 * take milliseconds, so this is cheap; test/conformance/executor-conformance.test.ts runs the same
 * properties on the real backends.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor, ProbeResult } from '../../harness/contracts/executor.ts';
import { listProcesses } from '../../harness/controls/proc-tree.ts';
import { BUILTIN_CATALOG, executorOf } from '../../executors/registry.ts';
import { BASELINE_FILES, openConformanceRun, type ConformanceRun } from '../../executors/conformance/conformance-run.ts';
import { cleanup, conformanceSubject, isolation, readyAndExit, stagingClaim, timingPathRecorded, type ConformanceSubject } from '../../executors/conformance/properties.ts';
import { runProperties } from '../../executors/conformance/check-backend.ts';
import { tempDir } from '../support/temp-dirs.ts';

const host = BUILTIN_CATALOG.get('host')!;

describe('conformance properties fail a backend that breaks them', () => {
  let run: ConformanceRun;
  let probe: ProbeResult;
  const leaked: number[] = [];
  const subjectOf = (executor: Executor): ConformanceSubject => conformanceSubject(executor, probe, run, 20_000);

  beforeAll(async () => {
    run = await openConformanceRun({ scratchRoot: tempDir('sandbench-conformance-') });
    probe = await executorOf(host, null).probe();
  });
  afterAll(async () => {
    for (const pid of leaked) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    expect(await run.dispose()).toEqual([]);
  });

  it('the honest host passes the properties it claims and is n/a for isolation', async () => {
    const subject = subjectOf(executorOf(host, null));
    expect((await readyAndExit(subject)).status).toBe('pass');
    expect(await isolation(subject)).toMatchObject({ status: 'not-applicable', reason: expect.stringMatching(/networkIsolated: false/) });
  });

  it('isolation: traits that claim a network and filesystem boundary the host does not have', async () => {
    const liar = executorOf({ ...host, traits: { ...host.traits, networkIsolated: true, isolatesFilesystem: false } }, null);
    const network = await isolation(subjectOf(liar));
    expect(network).toMatchObject({ property: 'isolation', status: 'fail' });
    expect(network.reason).toMatch(/traits say networkIsolated, yet a TCP connect to the host's 127\.0\.0\.1:\d+ printed "NET CONNECTED" and the listener saw 1 connection/);
    const files = await isolation(subjectOf(executorOf({ ...host, traits: { ...host.traits, networkIsolated: false, isolatesFilesystem: true } }, null)));
    expect(files.status).toBe('fail');
    expect(files.reason).toMatch(/traits say isolatesFilesystem, yet the task's write to .*escape-.*probe\.txt reached the host/);
  });

  it('staging: a backend that claims staging but runs the task in the baseline itself', async () => {
    const inner = host.create(null);
    const overBaseline = executorOf(
      {
        ...host,
        create: () => ({
          ...inner,
          // The host adapter runs in <trialDir>/workspace: make that the baseline, and claim staging.
          async stageWorkspace(trial) {
            symlinkSync(trial.baselineWorkspace, join(trial.trialDir, 'workspace'));
            return { hostPath: trial.baselineWorkspace, claimsStaging: true };
          },
        }),
      },
      null,
    );
    const result = await stagingClaim(subjectOf(overBaseline));
    expect(result.status).toBe('fail');
    expect(result.reason).toMatch(/the baseline workspace changed while the task ran \(tree digest sha256:\w+ → sha256:\w+\)/);
    // Put the shared baseline back for the cases after this one.
    rmSync(join(run.baseline, 'w.txt'), { force: true });
    for (const [path, content] of Object.entries(BASELINE_FILES)) {
      if (!existsSync(join(run.baseline, path)) || readFileSync(join(run.baseline, path), 'utf8') !== content) writeFileSync(join(run.baseline, path), content);
    }
  });

  it('cleanup: a backend whose launch leaves a detached process holding the task argv behind', async () => {
    const inner = host.create(null);
    const leaky = executorOf(
      {
        ...host,
        create: () => ({
          ...inner,
          async launch(trial, task) {
            const child = spawn('sh', ['-c', 'sleep 60; :', ...task.argv], { detached: true, stdio: 'ignore' });
            child.unref();
            leaked.push(child.pid!);
            return inner.launch(trial, task);
          },
        }),
      },
      null,
    );
    const result = await cleanup(subjectOf(leaky));
    expect(result.status).toBe('fail');
    expect(result.reason).toMatch(new RegExp(`after finishTrial the trial's processes are still running: sh\\[${leaked.at(-1)}\\]`));
    expect(listProcesses().some((p) => p.pid === leaked.at(-1))).toBe(true);
  });

  it('timing path: launches that do not state how they were timed', async () => {
    const inner = host.create(null);
    const untimed = executorOf({ ...host, create: () => ({ ...inner, launch: async (trial, task) => ({ ...(await inner.launch(trial, task)), timing: undefined }) }) }, null);
    const subject = subjectOf(untimed);
    const result = await timingPathRecorded(subject);
    expect(result.status).toBe('fail');
    expect(result.reason).toMatch(/launches without a timing path \(RunningTrial\.timing\): c\d+-timing/);
  });

  it('a backend whose task output never arrives fails ready-and-exit, and the rest are reported not checked', async () => {
    const inner = host.create(null);
    const mute = executorOf({ ...host, create: () => ({ ...inner, launch: (trial, task) => inner.launch(trial, { ...task, argv: ['sh', '-c', 'exec sleep 30', ...task.argv] }) }) }, null);
    const results = await runProperties(mute, probe, run, { trialTimeoutMs: 2_000 });
    expect(results[0]).toMatchObject({ property: 'ready-and-exit', status: 'fail', reason: expect.stringMatching(/^no REFERENCE_READY line reached the harness \(exit none, signal SIG[A-Z]+, timed out/) });
    expect(results.slice(1).every((r) => r.status === 'fail' && r.reason.startsWith('not checked: ready-and-exit saw no REFERENCE_READY'))).toBe(true);
    expect(results).toHaveLength(8);
  });

  it('a ready property failed on stdin alone does not stop the other properties', async () => {
    const inner = host.create(null);
    const deaf = executorOf({ ...host, create: () => ({ ...inner, launch: (trial, task) => inner.launch(trial, { ...task, stdin: 'none' }) }) }, null);
    const results = await runProperties(deaf, probe, run, { trialTimeoutMs: 10_000, only: ['ready-and-exit', 'staging'] });
    expect(results[0]).toMatchObject({ property: 'ready-and-exit', status: 'fail' });
    expect(results[0]!.reason).toMatch(/stdin/);
    expect(results[1]).toMatchObject({ property: 'staging', status: 'pass' });
  });
});
