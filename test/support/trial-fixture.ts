/**
 * Test scaffolding shared by the conformance and integration suites: a real RunContext on the real
 * task image, a baseline workspace, and stage → launch → exit → collect like the run loop.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { acquireRunLock } from '../../harness/run/run-lock.ts';
import type { CandidateFiles, ExecutorImplementation as Executor, ExitInfo, RunContext, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding } from '../../harness/contracts/executor.ts';
import { tempDir } from './temp-dirs.ts';

export interface TestRun {
  run: RunContext;
  root: string;
  baseline: string;
  dispose(): Promise<void>;
}

export async function makeTestRun(label: string): Promise<TestRun> {
  const runId = `t${label}${randomBytes(3).toString('hex')}`;
  const image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}));
  const root = tempDir(`sandbench-${runId}-`);
  const baseline = join(root, 'baseline');
  mkdirSync(join(baseline, 'sub'), { recursive: true });
  writeFileSync(join(baseline, 'a.txt'), 'hello\n');
  writeFileSync(join(baseline, 'sub', 'b.txt'), 'nested\n');
  const cleanup = new CleanupRegistry(runId);
  // A live run, as `sandbench run` holds one: another suite's teardown (or `clean`) running meanwhile
  // on this machine must not take this run's containers and VMs for leftovers of a dead run. Outside
  // the cleanup registry, which some suites check releases nothing.
  const releaseLock = acquireRunLock(stateDir(), runId);
  const run: RunContext = { runId, image, stateDir: stateDir(), cleanup, log: () => undefined, options: {} };
  return {
    run,
    root,
    baseline,
    async dispose() {
      try {
        await cleanup.releaseAll();
      } finally {
        releaseLock();
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Inside a describe: a test run and an executor prepared on it before the block's tests, torn down
 * after them (with `checkCleanup`, the run's cleanup registry must then release nothing).
 */
export function usePreparedExecutor<E extends Executor>(label: string, create: () => E, options: { checkCleanup?: boolean } = {}): { readonly executor: E; readonly test: TestRun } {
  let executor: E | undefined;
  let test: TestRun | undefined;
  beforeAll(async () => {
    test = await makeTestRun(label);
    executor = create();
    await executor.prepare(test.run);
  }, 300_000);
  afterAll(async () => {
    await executor?.teardown();
    if (options.checkCleanup && test) expect(await test.run.cleanup.releaseAll()).toEqual([]);
    await test?.dispose();
  }, 120_000);
  return {
    get executor() {
      return executor!;
    },
    get test() {
      return test!;
    },
  };
}

let trialCounter = 0;
export function makeTrial(test: TestRun, overrides: Partial<TrialContext> = {}): TrialContext {
  const trialId = `c${++trialCounter}`;
  const trialDir = join(test.root, trialId);
  mkdirSync(trialDir, { recursive: true });
  return { run: test.run, trialId, baselineWorkspace: test.baseline, trialDir, timeoutMs: 60_000, controls: { cpus: null, memoryMiB: null }, budget: null, ...overrides };
}

export const sh = (script: string, stdin: TaskCommand['stdin'] = 'none'): TaskCommand => ({ argv: ['/bin/sh', '-c', script], env: {}, stdin });

export interface TrialOutcome {
  binding: WorkspaceBinding;
  running: RunningTrial;
  exit: ExitInfo;
  stdout: string[];
  stderr: string[];
  candidates: CandidateFiles;
}

export async function runOne(executor: Executor, trial: TrialContext, task: TaskCommand, during?: (running: RunningTrial) => Promise<void>): Promise<TrialOutcome> {
  const binding = await executor.stageWorkspace(trial);
  const running = await executor.launch(trial, task);
  try {
    if (during) await during(running);
    const exit = await running.exit;
    const candidates = await executor.collect(trial, binding);
    return {
      binding,
      running,
      exit,
      stdout: running.lines.filter((l) => l.stream === 'stdout').map((l) => l.text),
      stderr: running.lines.filter((l) => l.stream === 'stderr').map((l) => l.text),
      candidates,
    };
  } finally {
    await executor.finishTrial(trial);
  }
}

/** Resolves when a line matching `predicate` arrives. */
export function waitForLine(running: RunningTrial, predicate: (text: string) => boolean): Promise<void> {
  return new Promise((resolve) => running.onLine((line) => predicate(line.text) && resolve()));
}
