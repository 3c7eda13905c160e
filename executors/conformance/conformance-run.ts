/**
 * What the conformance properties run on: a real RunContext on the cached task image, a baseline
 * workspace, per-trial directories and a cleanup registry, as `sandbench run` holds them. The scratch
 * directory is the run's own (`sandbench-<run id>` under the fixture root) and a run lock is held
 * meanwhile, so `clean` finds what a killed conformance run left and never takes a live one's for
 * leftovers. `sandbench conformance` and the conformance test suite both open one here.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunContext, TrialContext } from '../../harness/contracts/executor.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { newRunId } from '../../harness/run/bundle-dir.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { acquireRunLock } from '../../harness/run/run-lock.ts';
import { ImageSpecSchema } from '../../harness/spec/schema.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';

/** The baseline every trial sees as /workspace: the staging property reads, writes and deletes in it. */
export const BASELINE_FILES: Readonly<Record<string, string>> = { 'a.txt': 'hello\n', 'sub/b.txt': 'nested\n', 'gone.txt': 'delete me\n' };

export interface ConformanceRun {
  readonly context: RunContext;
  /** The run's scratch directory (baseline, trial directories, the service socket). */
  readonly root: string;
  readonly baseline: string;
  /** A fresh trial: its own directory under `<root>/trials`, no controls, no budget. */
  newTrial(label: string, overrides?: Partial<TrialContext>): TrialContext;
  /** A string unique to this run and trial, to find the trial's processes by their argv. */
  tokenOf(trial: TrialContext): string;
  /** Release everything the run registered (newest first), the lock, the scratch directory; returns what failed to release. */
  dispose(): Promise<string[]>;
}

export interface ConformanceRunOptions {
  log?: (message: string) => void;
  runId?: string;
  /** Where the run's `sandbench-<run id>` scratch directory goes; default the fixture root (harness/state-dir.ts), which `clean` scans. */
  scratchRoot?: string;
}

export async function openConformanceRun(options: ConformanceRunOptions = {}): Promise<ConformanceRun> {
  const log = options.log ?? (() => undefined);
  const runId = options.runId ?? newRunId('conformance');
  const image = await ensureTaskImage(stateDir(), ImageSpecSchema.parse({}), log);
  const cleanup = new CleanupRegistry(runId);
  // Outside the registry: the registry's release must run while the lock still says the run is live.
  const releaseLock = acquireRunLock(stateDir(), runId);
  const root = options.scratchRoot ? join(options.scratchRoot, `sandbench-${runId}`) : runScratchDir(stateDir(), runId);
  const baseline = join(root, 'baseline');
  try {
    mkdirSync(join(baseline, 'sub'), { recursive: true });
    mkdirSync(join(root, 'trials'), { recursive: true });
    for (const [path, content] of Object.entries(BASELINE_FILES)) writeFileSync(join(baseline, path), content);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    releaseLock();
    throw error;
  }
  const context: RunContext = { runId, image, stateDir: stateDir(), cleanup, log, options: { dockerHost: process.env.DOCKER_HOST } };
  const runTag = createHash('sha256').update(runId).digest('hex').slice(0, 8);
  let counter = 0;
  let disposed = false;
  return {
    context,
    root,
    baseline,
    newTrial(label, overrides = {}) {
      const trialId = `c${++counter}-${label}`;
      const trialDir = join(root, 'trials', trialId);
      mkdirSync(trialDir, { recursive: true });
      return { run: context, trialId, baselineWorkspace: baseline, trialDir, timeoutMs: 60_000, controls: { cpus: null, memoryMiB: null }, budget: null, ...overrides };
    },
    tokenOf: (trial) => `sbconf${runTag}${trial.trialId.replace(/[^a-z0-9]/gi, '')}`,
    async dispose() {
      if (disposed) return [];
      disposed = true;
      const failures: string[] = [];
      try {
        for (const failure of await cleanup.releaseAll()) failures.push(`${failure.handle.kind} ${failure.handle.name}: ${failure.error}`);
      } finally {
        // Never remove through a mount a backend left behind (it could reach the baseline's files).
        const mounts = mountsUnder([root]);
        if (mounts.length === 0) rmSync(root, { recursive: true, force: true });
        else failures.push(`${root} left in place, still mounted under it: ${mounts.join(', ')} (sandbench clean removes it)`);
        releaseLock();
      }
      return failures;
    },
  };
}

/** Mount points (host mount namespace) at or below one of `roots`. */
export function mountsUnder(roots: readonly string[]): string[] {
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((point): point is string => point !== undefined)
    .map((point) => point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
  return points.filter((point) => roots.some((root) => point === root || point.startsWith(`${root}/`)));
}
