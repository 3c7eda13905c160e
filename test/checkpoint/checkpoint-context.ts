/**
 * A real run context for checkpoint tests: the real task image and state directory, a run lock (so
 * another session's `sandbench clean` leaves the test's resources alone), the baseline under the
 * run's scratch directory, and a leftover check that also finds processes by SANDBENCH_RUN_ID.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { MechanismTrial } from '../../executors/checkpoint/mechanism.ts';
import { RUN_ID_ENV } from '../../executors/checkpoint/state-process.ts';
import { stateProgram, writeCheckpointBaseline } from '../../experiments/checkpoint/state-program.ts';
import type { RunContext } from '../../harness/contracts/executor.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { acquireRunLock } from '../../harness/run/run-lock.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { leftoversOf } from '../support/leftovers.ts';

export interface CheckpointTestRun {
  run: RunContext;
  baseline: string;
  trial(id: string, timeoutMs?: number): MechanismTrial;
  dispose(): Promise<void>;
}

export async function makeCheckpointRun(label: string): Promise<CheckpointTestRun> {
  const runId = `t${label}${randomBytes(3).toString('hex')}`;
  const image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}));
  const release = acquireRunLock(stateDir(), runId);
  const scratch = runScratchDir(stateDir(), runId);
  const baseline = join(scratch, 'baseline');
  mkdirSync(baseline, { recursive: true });
  writeCheckpointBaseline(baseline, 1761955200);
  const cleanup = new CleanupRegistry(runId);
  const run: RunContext = { runId, image, stateDir: stateDir(), cleanup, log: () => undefined, options: {} };
  return {
    run,
    baseline,
    trial: (id, timeoutMs = 120_000) => ({ run, dir: join(scratch, id), trialId: id, baseline, program: stateProgram, timeoutMs, vmMemoryMiB: 256 }),
    async dispose() {
      await cleanup.releaseAll();
      rmSync(scratch, { recursive: true, force: true });
      release();
    },
  };
}

/** Processes carrying the run id in their environment (relays, state servers, VMs). */
export function processesWithRunId(runId: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`${RUN_ID_ENV}=${runId}`)) found.push(Number(entry));
    } catch {
      // exited or not ours to read
    }
  }
  return found;
}

/** Everything of this run still on the machine, apart from the baseline the test itself keeps. */
export async function checkpointLeftovers(test: CheckpointTestRun): Promise<string[]> {
  const scratch = runScratchDir(stateDir(), test.run.runId);
  const generic = (await leftoversOf(test.run.runId)).filter((line) => line !== `tempdir: ${scratch}`);
  const inScratch = readdirSync(scratch).filter((name) => name !== 'baseline').map((name) => `scratch entry: ${name}`);
  return [...generic, ...inScratch, ...processesWithRunId(test.run.runId).map((pid) => `process with ${RUN_ID_ENV}: ${pid}`)];
}
