/**
 * Analyze bench: `analyzeBundle` (journal parse + every CSV, 5,000 bootstrap resamples per
 * comparison) on synthetic journals of 2,500 / 5,000 / 10,000 trials, so linear growth is visible.
 * Shape: shell-ready, 4 arms (docker control; host, staged, podman candidates), 2 timing metrics,
 * so 6 paired comparisons of trials/4 blocks each. Goal: 10,000 trials in ≤ 5 s.
 * Run: `node --import tsx bench/analyze.bench.ts` (part of `npm run bench`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { analyzeBundle } from '../harness/analyze/index.ts';
import { kindCatalog } from '../cli/kinds.ts';
import { syntheticRecords, syntheticResolved } from '../test/unit/analyze/synthetic-journal.ts';

export const ANALYZE_BENCH_GOAL_MS = 5000;
export const ANALYZE_BENCH_SIZES = [2500, 5000, 10000] as const;

export interface AnalyzeBenchResult {
  trials: number;
  comparisons: number;
  resamples: number;
  meanMs: number;
  minMs: number;
  samples: number;
  /** CPU time (user + system) of one extra run: less sensitive than wall time to other load on the machine. */
  cpuMs: number;
}

function cpuMsOf(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

function writeBundle(trials: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-analyze-bench-'));
  const resolved = syntheticResolved({
    runId: `bench-${trials}`,
    spec: { arms: [{ backend: 'docker' }, { backend: 'host' }, { backend: 'staged' }, { backend: 'podman' }], trials: trials / 4, warmups: 0, resamples: 5000 },
  });
  const records = syntheticRecords(resolved, { medians: { docker: 75, host: 2, staged: 25, podman: 74 }, failureRate: 0.01 });
  writeFileSync(join(dir, 'resolved-spec.json'), JSON.stringify(resolved, null, 2));
  writeFileSync(join(dir, 'journal.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  return dir;
}

export async function runAnalyzeBench(): Promise<AnalyzeBenchResult[]> {
  const kinds = await kindCatalog();
  const bench = new Bench({ iterations: 3, time: 0, warmup: false });
  const dirs = new Map<number, string>();
  for (const trials of ANALYZE_BENCH_SIZES) {
    const dir = writeBundle(trials);
    dirs.set(trials, dir);
    bench.add(`analyze ${trials} trials`, () => {
      analyzeBundle(dir, kinds);
    });
  }
  const cpu = new Map<number, number>();
  try {
    await bench.run();
    for (const [trials, dir] of dirs) cpu.set(trials, cpuMsOf(() => analyzeBundle(dir, kinds)));
  } finally {
    for (const dir of dirs.values()) rmSync(dir, { recursive: true, force: true });
  }
  const results: AnalyzeBenchResult[] = bench.tasks.map((task, index) => {
    const r = task.result as { latency?: { mean: number; min: number; samples: number[] }; error?: unknown } | undefined;
    if (!r?.latency) throw new Error(`${task.name} failed: ${String(r?.error)}`);
    const trials = ANALYZE_BENCH_SIZES[index]!;
    return { trials, comparisons: 6, resamples: 5000, meanMs: r.latency.mean, minMs: r.latency.min, samples: r.latency.samples.length, cpuMs: cpu.get(trials)! };
  });
  console.log(`analyze bench (5,000 resamples per comparison, 6 paired comparisons; load average ${loadavg()[0]!.toFixed(2)}):`);
  for (const r of results) {
    console.log(`  ${String(r.trials).padStart(6)} trials: wall mean ${r.meanMs.toFixed(0)} ms, min ${r.minMs.toFixed(0)} ms over ${r.samples} runs (${(r.minMs / r.trials).toFixed(3)} ms/trial); CPU ${r.cpuMs.toFixed(0)} ms`);
  }
  const largest = results.at(-1)!;
  console.log(`  goal: ${largest.trials} trials in ≤ ${ANALYZE_BENCH_GOAL_MS} ms → ${largest.minMs <= ANALYZE_BENCH_GOAL_MS ? 'met' : 'NOT met'} (best of ${largest.samples})`);
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await runAnalyzeBench();
