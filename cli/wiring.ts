/**
 * The composition root's wiring: the only module that knows every layer. It builds the executor
 * and kind registries, the executors' leftover finders and the report renderer, and hands them to
 * harness/ (run loop, clean, merge) through the contracts in harness/contracts/wiring.ts.
 * Loaded lazily by the commands that need it, so `sandbench verify` never loads an executor.
 */
import type { LeftoverSource } from '../harness/clean/leftover.ts';
import type { ExecutorFactory, ReportRenderer, RunWiring } from '../harness/contracts/wiring.ts';
import type { ExecutorDescriptor } from '../executors/backend-descriptor.ts';

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

/** The executor factory over a catalog of descriptors (built in, or built in + a spec's declared ones). */
async function factoryOver(catalog: { get(name: string): ExecutorDescriptor | undefined }): Promise<ExecutorFactory> {
  const { executorOf } = await import('../executors/registry.ts');
  return (backend, variant, build) => {
    const descriptor = catalog.get(backend);
    return descriptor ? executorOf(descriptor, variant, build) : null;
  };
}

export async function runWiring(): Promise<RunWiring> {
  const [{ BUILTIN_CATALOG }, { catalogForSpec }, { EXPERIMENTS, SPEC_KINDS }] = await Promise.all([import('../executors/registry.ts'), import('../executors/declared-backends.ts'), import('../experiments/registry.ts')]);
  return {
    createExecutor: await factoryOver(BUILTIN_CATALOG),
    executorsFor: async (spec) => factoryOver(await catalogForSpec(spec)),
    kindFor: (kind) => (Object.hasOwn(EXPERIMENTS, kind) ? EXPERIMENTS[kind] : undefined),
    specKinds: SPEC_KINDS,
    leftoverSources: await leftoverSources(),
    renderReport: await reportRenderer(),
  };
}
