/**
 * Rollout bench: the harness's own CPU per rollout for the rollout kind on host at C = 1, 4, 16
 * against a fast model (4 slots, 20 ms), candidates scored on `staged` as rollout.yaml scores them
 * (a host scoring backend adds a second `cp -a` of the scoring workspace), with throughput and the phase means, so the overhead of the
 * loop itself is visible apart from the sandboxes. The figure (rollout-summary.csv
 * harness_cpu_ms_per_rollout) is, over each cell's closed loop ÷ its attempts: the harness process
 * (process.cpuUsage: main thread, libuv pool, GC, loader threads) + the native launcher
 * co-process's own utime + stime (/proc/<pid>/stat; printed apart as "launcher"). Not in it: the
 * commands the launcher runs for a rollout (agent, sandbox, `cp -a` / `rm -rf` of its workspaces,
 * the scoring run), the model service (the capacity under test), and the run loop's work outside a
 * cell (start-up, the per-trial journal lines after the cell, analysis and report), printed
 * separately as the whole run's CPU per rollout for context. The PSS and budget-memory samplers
 * run in the harness, so they are in the figure; a control cell shows the PSS sampler's share.
 * Target: ≤ 5 ms harness CPU per rollout at C = 16. Printed, never asserted.
 * Run: `node --import tsx bench/rollout.bench.ts` (part of `npm run bench`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runWiring } from '../cli/wiring.ts';
import { parseCsv } from '../harness/bundle/csv.ts';
import { runSpec } from '../harness/run/run-spec.ts';

export const ROLLOUT_BENCH_TARGET_MS = 5;

export interface RolloutBenchRow {
  cell: string;
  completed: string;
  planned: string;
  throughput_rps: string;
  harness_cpu_ms_per_rollout: string;
  harness_cpu_user_ms_per_rollout: string;
  harness_cpu_system_ms_per_rollout: string;
  harness_cpu_helpers_ms_per_rollout: string;
  substrate_ms: string;
}

interface BenchRun {
  rows: RolloutBenchRow[];
  /** CPU of this process over the whole runSpec (start-up, cells, journal, analysis, report). */
  wholeMs: number;
}

async function runOnce(dir: string, name: string, rollout: string): Promise<BenchRun> {
  const spec = join(dir, `${name}.yaml`);
  writeFileSync(spec, `name: ${name}\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 120s\nrollout:\n  model: [{ slots: 4, base_ms: 20 }]\n  scoring_backend: staged\n  retain: none\n${rollout}`);
  const out = join(dir, name);
  const cpu = process.cpuUsage();
  await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
  const whole = process.cpuUsage(cpu);
  return { rows: parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows as unknown as RolloutBenchRow[], wholeMs: (whole.user + whole.system) / 1000 };
}

const f = (v: string) => Number(v).toFixed(2);

/**
 * A warm-up run first (8 attempts at C = 4, not reported), so the cells are timed in the state a
 * long run is in (the JIT's compilation of the hot paths is CPU on V8's background threads, which
 * process.cpuUsage counts); then C = 1, 4, 16 at the spec's defaults (PSS sampled every 500 ms);
 * then a control C = 16 cell with PSS sampled once per rollout, whose difference is the PSS
 * sampler's share (the measurement's own cost: smaps_rollup makes the kernel walk each process's
 * page tables, ≈ 0.2 ms of system time per python process here).
 */
export async function runRolloutBench(attempts = 32): Promise<RolloutBenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-rollout-bench-'));
  try {
    const load = loadavg()[0]!;
    await runOnce(dir, 'warmup', '  attempts: 8\n  concurrency: [4]\n');
    const main = await runOnce(dir, 'rollout-bench', `  attempts: ${attempts}\n  concurrency: [1, 4, 16]\n`);
    const control = await runOnce(dir, 'rb-pss-once', `  attempts: ${attempts}\n  concurrency: [16]\n  pss_interval: 600s\n`);
    for (const r of main.rows) {
      console.log(`rollout ${r.cell}: n = ${r.completed}/${r.planned} completed, ${Number(r.throughput_rps).toFixed(3)} rollouts/s, substrate ${Number(r.substrate_ms).toFixed(0)} ms/rollout; harness CPU ${f(r.harness_cpu_ms_per_rollout)} ms/rollout (user ${f(r.harness_cpu_user_ms_per_rollout)}, system ${f(r.harness_cpu_system_ms_per_rollout)}; launcher ${f(r.harness_cpu_helpers_ms_per_rollout)} of it; target ≤ ${ROLLOUT_BENCH_TARGET_MS} at C=16)`);
    }
    const c16 = main.rows.find((r) => r.cell.includes('-c16-'));
    for (const r of control.rows) {
      const share = c16 ? Number(c16.harness_cpu_ms_per_rollout) - Number(r.harness_cpu_ms_per_rollout) : NaN;
      console.log(`rollout ${r.cell} with PSS sampled once per rollout (control): n = ${r.completed}/${r.planned}, substrate ${Number(r.substrate_ms).toFixed(0)} ms/rollout; harness CPU ${f(r.harness_cpu_ms_per_rollout)} ms/rollout (launcher ${f(r.harness_cpu_helpers_ms_per_rollout)}); so PSS sampling every 500 ms ≈ ${share.toFixed(2)} ms/rollout at C=16 (it grows with the rollout's duration)`);
    }
    const rollouts = main.rows.reduce((sum, r) => sum + Number(r.planned), 0);
    console.log('rollout bench: harness CPU = over each cell\'s closed loop ÷ its attempts, the harness process (every thread: main, libuv pool, GC, JIT) + the launcher co-process\'s own utime+stime; it includes the PSS and budget-memory samplers; excluded: what the launcher runs for a rollout (agent, sandbox, cp -a / find / rm -rf of its workspaces, scoring), the model service (the capacity under test), work outside the cells. One cell run each: no CI (repeat the bench for spread)');
    console.log(`rollout bench: whole main run in this process (start-up, task set, cells, journal, analysis, report; launcher excluded): ${(main.wholeMs / rollouts).toFixed(2)} ms per rollout over ${rollouts} rollouts`);
    console.log(`rollout bench: load average ${load.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`);
    return main.rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runRolloutBench();
