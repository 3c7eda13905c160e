/**
 * Rollout bench: the harness's own CPU per rollout for the rollout kind on host at C = 1, 4, 16
 * against a fast model (4 slots, 20 ms), with throughput and the phase means, so the overhead of the
 * loop itself is visible apart from the sandboxes. The figure (rollout-summary.csv
 * harness_cpu_ms_per_rollout) is, over each cell's closed loop ÷ its attempts: the harness process
 * (process.cpuUsage: main thread, libuv pool, GC, loader threads) + the native launcher
 * co-process's own utime + stime (/proc/<pid>/stat; printed apart as "launcher"). Not in it: the
 * commands the launcher runs for a rollout (agent, sandbox, `cp -a` / `rm -rf` of its workspaces,
 * the scoring run), the model service (the capacity under test), and the run loop's work outside a
 * cell (start-up, the per-trial journal lines after the cell, analysis and report), printed
 * separately as the whole run's CPU per rollout for context.
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

export async function runRolloutBench(attempts = 32): Promise<RolloutBenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-rollout-bench-'));
  try {
    const spec = join(dir, 'rollout-bench.yaml');
    writeFileSync(spec, `name: rollout-bench\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 120s\nrollout:\n  attempts: ${attempts}\n  concurrency: [1, 4, 16]\n  model: [{ slots: 4, base_ms: 20 }]\n  scoring_backend: host\n  retain: none\n`);
    const load = loadavg()[0]!;
    const out = join(dir, 'bundle');
    const runCpu = process.cpuUsage();
    await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    const whole = process.cpuUsage(runCpu);
    const rows = parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows as unknown as RolloutBenchRow[];
    const f = (v: string) => Number(v).toFixed(2);
    for (const r of rows) {
      console.log(`rollout ${r.cell}: ${r.completed}/${r.planned} completed, ${Number(r.throughput_rps).toFixed(3)} rollouts/s, substrate ${Number(r.substrate_ms).toFixed(0)} ms/rollout; harness CPU ${f(r.harness_cpu_ms_per_rollout)} ms/rollout (user ${f(r.harness_cpu_user_ms_per_rollout)}, system ${f(r.harness_cpu_system_ms_per_rollout)}; launcher ${f(r.harness_cpu_helpers_ms_per_rollout)} of it; target ≤ ${ROLLOUT_BENCH_TARGET_MS} at C=16)`);
    }
    const rollouts = rows.reduce((sum, r) => sum + Number(r.planned), 0);
    console.log(`rollout bench: harness CPU = the harness process (every thread) + the launcher co-process's own utime+stime over each cell's loop ÷ its attempts; excluded: what the launcher runs for a rollout (agent, sandbox, cp -a/rm -rf of its workspaces, scoring), the model service, work outside the cells`);
    console.log(`rollout bench: whole run in this process (start-up, task set, cells, journal, analysis, report; launcher excluded): ${((whole.user + whole.system) / 1000 / rollouts).toFixed(2)} ms per rollout over ${rollouts} rollouts`);
    console.log(`rollout bench: load average ${load.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runRolloutBench();
