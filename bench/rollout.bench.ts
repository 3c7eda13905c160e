/**
 * Rollout bench: the harness's own CPU per rollout (process.cpuUsage over each cell ÷ attempts,
 * user and system apart) for the rollout kind on host at C = 1, 4, 16 against a fast model
 * (4 slots, 20 ms), with throughput and the phase means, so the overhead of the loop itself is
 * visible apart from the sandboxes (the model service and the native launcher are other processes).
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
  substrate_ms: string;
}

export async function runRolloutBench(attempts = 32): Promise<RolloutBenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-rollout-bench-'));
  try {
    const spec = join(dir, 'rollout-bench.yaml');
    writeFileSync(spec, `name: rollout-bench\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 120s\nrollout:\n  attempts: ${attempts}\n  concurrency: [1, 4, 16]\n  model: [{ slots: 4, base_ms: 20 }]\n  scoring_backend: host\n  retain: none\n`);
    const load = loadavg()[0]!;
    const out = join(dir, 'bundle');
    await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    const rows = parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows as unknown as RolloutBenchRow[];
    const f = (v: string) => Number(v).toFixed(2);
    for (const r of rows) {
      console.log(`rollout ${r.cell}: ${r.completed}/${r.planned} completed, ${Number(r.throughput_rps).toFixed(3)} rollouts/s, substrate ${Number(r.substrate_ms).toFixed(0)} ms/rollout; harness CPU ${f(r.harness_cpu_ms_per_rollout)} ms/rollout (user ${f(r.harness_cpu_user_ms_per_rollout)}, system ${f(r.harness_cpu_system_ms_per_rollout)}; target ≤ ${ROLLOUT_BENCH_TARGET_MS} at C=16)`);
    }
    console.log(`rollout bench: load average ${load.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`);
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await runRolloutBench();
