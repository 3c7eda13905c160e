/**
 * Executor overhead figures, measured in ONE interleaved run so the ratio is not skewed by the
 * machine's state drifting between two runs: staged vs host ready time (pVisor published 25.13 ms
 * vs 1.28 ms = 19.6×), and the host executor's no-op completion median next to hyperfine's for the
 * same command (how much the harness itself adds to a launch).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import Papa from 'papaparse';
import { runSpec } from '../harness/run/run-spec.ts';
import { runWiring } from '../cli/wiring.ts';

const quiet = () => undefined;

interface Central {
  /** P50, or for a separated-cluster distribution the low cluster's median (flagged). */
  p50: number;
  n: number;
  text: string;
}

/** The summary's central value; when the cluster rule split the data there is no single P50, so say so. */
function summaryP50(bundleDir: string, backend: string, metric: string): Central {
  const rows = Papa.parse<Record<string, string>>(readFileSync(join(bundleDir, 'summary.csv'), 'utf8').trim(), { header: true }).data;
  const row = rows.find((r) => r.backend === backend && r.metric === metric);
  if (!row) throw new Error(`no ${metric} row for ${backend} in ${bundleDir}`);
  if (row.p50 !== '') return { p50: Number(row.p50), n: Number(row.n), text: `P50 ${Number(row.p50).toFixed(2)} ms` };
  const text = `separated clusters: low P50 ${Number(row.low_p50).toFixed(2)} ms (n=${row.low_n}), high P50 ${Number(row.high_p50).toFixed(2)} ms (n=${row.high_n})`;
  return { p50: Number(row.low_p50), n: Number(row.n), text };
}

async function runTempSpec(yaml: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-bench-'));
  const specPath = join(dir, 'spec.yaml');
  writeFileSync(specPath, yaml);
  const result = await runSpec({ specPath, overrides: {}, out: join(dir, 'bundle'), requireAll: true, log: quiet, wiring: await runWiring() });
  return result.bundleDir;
}

export async function runReadyRatioBench(trials = 30): Promise<void> {
  const bundle = await runTempSpec(`name: bench-ready-ratio
experiment: shell-ready
arms: [{ backend: host }, { backend: staged }]
warmups: 3
trials: ${trials}
seed: 11
timeout: 30s
controls: { cpus: "0,1" }
`);
  const host = summaryP50(bundle, 'host', 'ready_ms');
  const staged = summaryP50(bundle, 'staged', 'ready_ms');
  console.log(`shell-ready (one interleaved run, n=${host.n} per arm): host ${host.text}, staged ${staged.text}, staged/host ${(staged.p50 / host.p50).toFixed(2)}× (published 25.13/1.28 = 19.6×; goal ≤ 5×)`);
  console.log(`  bundle: ${bundle}`);
}

async function hyperfineMedianMs(command: string, runs: number): Promise<number | null> {
  const which = await execa('hyperfine', ['--version'], { reject: false });
  if (which.failed) return null;
  const dir = mkdtempSync(join(tmpdir(), 'sandbench-hf-'));
  try {
    const out = join(dir, 'hf.json');
    await execa('hyperfine', ['-N', '--warmup', '3', '--runs', String(runs), '--export-json', out, command]);
    const parsed = JSON.parse(readFileSync(out, 'utf8')) as { results: { median: number }[] };
    return parsed.results[0]!.median * 1000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runNoopBench(trials = 30): Promise<void> {
  const bundle = await runTempSpec(`name: bench-noop
experiment: command
arms: [{ backend: host }]
warmups: 3
trials: ${trials}
seed: 12
timeout: 30s
task: { argv: ["/bin/true"] }
`);
  const host = summaryP50(bundle, 'host', 'completion_ms');
  // Unlike the ready-ratio bundle (printed as the figure's evidence), nothing points here: remove it.
  rmSync(dirname(bundle), { recursive: true, force: true });
  const hyperfine = await hyperfineMedianMs('/bin/true', trials);
  console.log(`no-op /bin/true (n=${host.n}): sandbench host executor completion ${host.text}; hyperfine -N median ${hyperfine === null ? 'n/a (hyperfine not installed)' : `${hyperfine.toFixed(3)} ms`}`);
}
