/**
 * The composition root's wiring: the only module that knows every layer. It builds the executor
 * and kind registries, the executors' leftover finders and the report renderer, and hands them to
 * harness/ (run loop, clean, merge) through the contracts in harness/contracts/wiring.ts.
 * Loaded lazily by the commands that need it, so `sandbench verify` never loads an executor.
 */
import type { LeftoverSource } from '../harness/clean/leftover.ts';
import type { ReportRenderer, RunWiring } from '../harness/contracts/wiring.ts';

export async function leftoverSources(): Promise<readonly LeftoverSource[]> {
  return (await import('../executors/registry.ts')).BUILTIN_LEFTOVER_SOURCES;
}

/** report.html/report.md, plus fleet-report.md when the bundle is a fleet merge. */
export async function reportRenderer(): Promise<ReportRenderer> {
  const [{ writeReport }, { writeFleetReport }] = await Promise.all([import('../reports/index.ts'), import('../reports/fleet/fleet-report.ts')]);
  return (analyzed) => {
    writeFleetReport(analyzed.dir);
    writeReport(analyzed);
  };
}

export async function runWiring(): Promise<RunWiring> {
  const [{ createExecutor }, { EXPERIMENTS, SPEC_KINDS }] = await Promise.all([import('../executors/registry.ts'), import('../experiments/registry.ts')]);
  return {
    createExecutor: (backend, variant, build) => createExecutor(backend as Parameters<typeof createExecutor>[0], variant, build),
    kindFor: (kind) => (Object.hasOwn(EXPERIMENTS, kind) ? EXPERIMENTS[kind] : undefined),
    specKinds: SPEC_KINDS,
    leftoverSources: await leftoverSources(),
    renderReport: await reportRenderer(),
  };
}
