/**
 * `npm run bench`: every speed and overhead figure sandbench cares about, printed, never asserted
 * (timed assertions flake on a noisy 2-core machine). Pass names to run a subset:
 * `npm run bench -- ready noop analyze density`.
 */
import { runNoopBench, runReadyRatioBench } from './executor-overhead.bench.ts';

const BENCHES: Record<string, () => Promise<unknown>> = {
  ready: () => runReadyRatioBench(),
  noop: () => runNoopBench(),
  analyze: async () => (await import('./analyze.bench.ts')).runAnalyzeBench(),
  density: async () => (await import('./density.bench.ts')).runDensityBench(),
  'stats-oc': async () => (await import('./stats-oc.bench.ts')).runStatsOcBench(),
  fidelity: async () => (await import('./fidelity.bench.ts')).runFidelityBench(),
  model: async () => (await import('./model.bench.ts')).runModelBench(),
  rollout: async () => (await import('./rollout.bench.ts')).runRolloutBench(),
  'harness-scale': async () => (await import('./harness-scale.bench.ts')).runHarnessScaleBench(),
  'harness-steps': async () => (await import('./harness-steps.bench.ts')).runHarnessStepsBench(),
};

const selected = process.argv.slice(2).filter((name) => name !== '--');
for (const name of selected.length > 0 ? selected : Object.keys(BENCHES)) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown bench "${name}"; choose from ${Object.keys(BENCHES).join(', ')}`);
    process.exitCode = 2;
    continue;
  }
  console.log(`== ${name}`);
  await bench();
}
