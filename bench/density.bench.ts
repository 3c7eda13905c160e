/**
 * Density overhead bench: one N=32 batch (staged; host when staged is unavailable) and what the
 * harness itself costs while running it. The harness is outside the budget, so its own peak RSS is
 * measured here, not assumed small (goal ≤ 150 MiB), together with the GO release skew (goal ≤ 5 ms).
 * Run: `node --import tsx bench/density.bench.ts` (needs root and cgroups; part of `npm run bench`).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createExecutor } from '../executors/registry.ts';
import type { RunContext } from '../harness/contracts/executor.ts';
import { runDensityBatch } from '../experiments/density/density-batch.ts';
import { batchOptions, prepareDensityBaseline } from '../experiments/density/density-kind.ts';
import type { ExperimentContext } from '../harness/contracts/experiment-kind.ts';
import { ensureTaskImage } from '../harness/image/ensure-image.ts';
import { CleanupRegistry } from '../harness/run/cleanup-registry.ts';
import { acquireRunLock } from '../harness/run/run-lock.ts';
import { parseSpec } from '../experiments/registry.ts';
import { stateDir } from '../harness/state-dir.ts';

/** Release skew goal from issue 14: GO written by the native launcher's one loop, max − min write stamp. */
export const DENSITY_BENCH_GOALS = { harnessPeakRssMiB: 150, releaseSkewMs: 0.5 } as const;

export interface DensityBenchResult {
  backend: 'staged' | 'host';
  concurrency: number;
  validated: number;
  /** Max of process RSS sampled every 50 ms during the batch. */
  harnessPeakRssMiB: number;
  /** Kernel high-water mark of the harness process (whole process lifetime, includes start-up). */
  harnessVmHwmMiB: number;
  releaseSkewMs: number | null;
  /** Who wrote GO: the launcher (one C loop) or Node's event loop (fallback). */
  releasePath: 'launcher' | 'node' | null;
  releaseFailedWrites: number;
  barrierMemoryMiB: number | null;
  peakMemoryMiB: number | null;
  wallMs: number | null;
  loadAverage1m: number;
}

function vmHwmMiB(): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

export async function measureDensityBench(concurrency = 32): Promise<DensityBenchResult> {
  const runId = `bench${randomBytes(3).toString('hex')}`;
  const scratch = mkdtempSync(join(tmpdir(), `sandbench-${runId}-`));
  // A live run holds a run lock; without one, a concurrent `sandbench clean` (or a test suite's
  // leftover sweep) takes the bench's budget and workers for a dead run's leftovers and kills them.
  const releaseLock = acquireRunLock(stateDir(), runId);
  const image = await ensureTaskImage(stateDir(), { suite: 'bookworm', packages: ['python3', 'git', 'busybox', 'ca-certificates'], source_date_epoch: 1761955200 });
  const run: RunContext = { runId, image, stateDir: scratch, cleanup: new CleanupRegistry(runId), log: () => undefined, options: {} };
  const staged = createExecutor('staged', null)!;
  const backend = (await staged.probe()).available ? 'staged' : 'host';
  const executor = backend === 'staged' ? staged : createExecutor('host', null)!;
  await executor.prepare(run);
  const spec = parseSpec({ name: 'density-bench', experiment: 'density', arms: [{ backend }], warmups: 0, trials: 1, seed: 1, timeout: '600s', density: { concurrency: [concurrency], batches: 1, ready_timeout: '300s' } });
  const ctx: ExperimentContext = { run, spec, bundleDir: scratch, executorFor: () => executor };
  try {
    await prepareDensityBaseline(ctx);
    let peakRss = process.memoryUsage().rss;
    const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
    const result = await runDensityBatch(batchOptions(ctx, { backend, variant: null }, 'bench', 'useful', concurrency));
    clearInterval(timer);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    const mib = (bytes: number | null | undefined) => (bytes === null || bytes === undefined ? null : bytes / 2 ** 20);
    return {
      backend,
      concurrency,
      validated: result.workers.filter((w) => w.state === 'valid').length,
      harnessPeakRssMiB: peakRss / 2 ** 20,
      harnessVmHwmMiB: vmHwmMiB(),
      releaseSkewMs: result.releaseSkewMs,
      releasePath: result.release?.path ?? null,
      releaseFailedWrites: result.release?.failedWrites ?? 0,
      barrierMemoryMiB: mib(result.barrierMemoryBytes),
      peakMemoryMiB: mib(result.peak?.peakBytes),
      wallMs: result.wallMs,
      loadAverage1m: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
    };
  } finally {
    await run.cleanup.releaseAll();
    await executor.teardown();
    rmSync(scratch, { recursive: true, force: true });
    releaseLock();
  }
}

export function formatDensityBench(r: DensityBenchResult): string {
  const verdict = (value: number | null, goal: number) => (value === null ? 'not measured' : value <= goal ? `within goal ≤ ${goal}` : `ABOVE goal ≤ ${goal}`);
  return [
    `density bench: ${r.backend} N=${r.concurrency}, ${r.validated}/${r.concurrency} workers valid, load average ${r.loadAverage1m}`,
    `  harness peak RSS during batch  ${r.harnessPeakRssMiB.toFixed(1)} MiB (${verdict(r.harnessPeakRssMiB, DENSITY_BENCH_GOALS.harnessPeakRssMiB)}); VmHWM ${r.harnessVmHwmMiB.toFixed(1)} MiB`,
    `  release skew (GO to all ready)  ${r.releaseSkewMs === null ? 'n/a' : r.releaseSkewMs.toFixed(3)} ms (${verdict(r.releaseSkewMs, DENSITY_BENCH_GOALS.releaseSkewMs)}; max − min write stamp, written by ${r.releasePath ?? 'nobody'}${r.releaseFailedWrites ? `, ${r.releaseFailedWrites} writes failed` : ''}; the journal's release_skew_ms is this number)`,
    `  budget memory at barrier ${r.barrierMemoryMiB?.toFixed(1) ?? 'n/a'} MiB, peak ${r.peakMemoryMiB?.toFixed(1) ?? 'n/a'} MiB, wall ${r.wallMs?.toFixed(0) ?? 'n/a'} ms`,
  ].join('\n');
}

/** `npm run bench -- density`: measure and print. */
export async function runDensityBench(): Promise<void> {
  console.log(formatDensityBench(await measureDensityBench()));
}

if (import.meta.url === `file://${process.argv[1]}`) await runDensityBench();
