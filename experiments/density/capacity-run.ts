/**
 * `sandbench capacity`: one backend's largest passing N for a density spec, by bisection
 * (capacity-search.ts) over real batches in the spec's budget. Every batch is journaled (fsynced,
 * failures included) in the output directory beside `capacity.json` — the bracket and the batches
 * that decided each of its ends — so the answer can be audited, not just read.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../../harness/errors.ts';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import type { RunContext } from '../../harness/contracts/executor.ts';
import type { ExecutorFactory } from '../../harness/contracts/wiring.ts';
import { ensureTaskImage } from '../../harness/image/ensure-image.ts';
import { JournalWriter } from '../../harness/journal/journal.ts';
import { armLabel, type ArmRef, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { newRunId, prepareBundleDir } from '../../harness/run/bundle-dir.ts';
import { acquireRunLock } from '../../harness/run/run-lock.ts';
import { loadSpec } from '../../harness/spec/load-spec.ts';
import type { SpecKinds } from '../../harness/spec/kind-spec.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { writeEnvironment } from '../../harness/provenance/environment.ts';
import { CapacityInterrupted, searchDensityCapacity, type CapacityBracket } from './capacity-search.ts';
import { prepareDensityBaseline, densityBaselineDir } from './density-kind.ts';
import { densitySection } from './density-plan.ts';
import type { DensityWorkload } from './density-batch.ts';

export const CAPACITY_FILE = 'capacity.json';

export interface CapacityRequest {
  specPath: string;
  arm: ArmRef;
  workload?: DensityWorkload;
  from?: number;
  to?: number;
  batches?: number;
  out?: string;
  createExecutor: ExecutorFactory;
  specKinds: SpecKinds;
  log: (message: string) => void;
}

/** One batch as the report shows it: why it passed or failed. */
export interface DecidingBatch {
  trial_id: string;
  concurrency: number;
  outcome: TrialRecord['outcome'];
  failure_category: TrialRecord['failure_category'];
  failure_reasons: Record<string, number>;
  validated: number | null;
  wall_ms: number | null;
  barrier_memory_mib: number | null;
}

export interface CapacityReport {
  run_id: string;
  spec_path: string;
  arm: ArmRef;
  workload: DensityWorkload;
  range: { from: number; to: number };
  batches_per_probe: number;
  budget: { cpus: string; memory_mib: number; swap_bytes: 0 };
  bracket: CapacityBracket;
  /** The batches of the largest passing N and of the smallest failing N: the two ends of the bracket. */
  decided_by: { largest_passing: DecidingBatch[]; smallest_failing: DecidingBatch[] };
  /** Load average at the end: capacity under a loaded host is lower, so say how loaded it was. */
  load_average_1m_end: number;
  interrupted: boolean;
}

function deciding(record: TrialRecord): DecidingBatch {
  return {
    trial_id: record.trial_id,
    concurrency: Number(record.facts.concurrency),
    outcome: record.outcome,
    failure_category: record.failure_category,
    failure_reasons: (record.facts.failure_reasons ?? {}) as Record<string, number>,
    validated: record.metrics.validated ?? null,
    wall_ms: record.metrics.wall_ms ?? null,
    barrier_memory_mib: record.metrics.barrier_memory_mib ?? null,
  };
}

function boundsOf(spec: Spec, request: CapacityRequest): { from: number; to: number } {
  const density = densitySection(spec);
  const from = request.from ?? density.capacity_search?.min ?? 1;
  const to = request.to ?? density.capacity_search?.max ?? Math.max(...density.concurrency);
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to >= from)) {
    throw new UserError(`capacity: --from ${from} --to ${to}: need whole numbers with 1 <= from <= to (or density.capacity_search.min/max in ${request.specPath})`);
  }
  return { from, to };
}

export async function runCapacity(request: CapacityRequest): Promise<{ dir: string; report: CapacityReport }> {
  const loaded = loadSpec(request.specPath, request.specKinds);
  if (loaded.spec.experiment !== 'density') {
    throw new UserError(`${request.specPath}: experiment: capacity needs a density spec (this one is "${loaded.spec.experiment}"); e.g. experiments/specs/density.yaml`);
  }
  const base = densitySection(loaded.spec);
  const workload = request.workload ?? base.workloads[0]!;
  const batches = request.batches ?? base.batches;
  const range = boundsOf(loaded.spec, request);
  const spec: Spec = { ...loaded.spec, arms: [{ backend: request.arm.backend as Spec['arms'][number]['backend'], ...(request.arm.variant ? { variant: request.arm.variant } : {}) }], density: { ...base, batches } };

  const executor = request.createExecutor(request.arm.backend, request.arm.variant);
  if (!executor) throw new UserError(`--backend ${request.arm.backend}: no executor adapter in this build`);
  const probe = await executor.probe();
  if (!probe.available) throw new UserError(`--backend ${request.arm.backend}: not available here (${probe.reason ?? 'unavailable'})${probe.fix ? `; fix: ${probe.fix}` : ''}`);

  const runId = newRunId(`${spec.name}-capacity`);
  const dir = resolve(request.out ?? join('runs', runId));
  prepareBundleDir(dir, { allowExisting: false });
  writeFileSync(join(dir, 'spec.yaml'), loaded.source);
  const cleanup = new CleanupRegistry(runId);
  cleanup.register('process', 'run lock', acquireRunLock(stateDir(), runId));
  const scratch = runScratchDir(stateDir(), runId);
  cleanup.register('tempdir', scratch, () => rmSync(scratch, { recursive: true, force: true }));
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    request.log(`${signal}: stopping — killing the batch in flight and releasing resources`);
    void cleanup.releaseAll();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const journal = new JournalWriter(join(dir, 'journal.jsonl'));
  const records: TrialRecord[] = [];
  let bracket: CapacityBracket = { largest_passing: null, smallest_failing: null, probes: [] };
  try {
    const image = await ensureTaskImage(stateDir(), spec.image, request.log);
    const run: RunContext = { runId, image, stateDir: stateDir(), cleanup, log: request.log, options: {} };
    await executor.prepare(run);
    await writeEnvironment(dir, image, [probe], { [executor.backend]: executor.imageFacts?.() ?? null });
    const ctx: ExperimentContext = { run, spec, bundleDir: dir, executorFor: () => executor };
    await prepareDensityBaseline(ctx);
    bracket = await searchDensityCapacity(ctx, {
      arm: request.arm,
      workload,
      min: range.from,
      max: range.to,
      shouldStop: () => interrupted,
      onRecord: (record) => {
        journal.append(record);
        records.push(record);
        const reasons = Object.entries((record.facts.failure_reasons ?? {}) as Record<string, number>).map(([k, v]) => `${k} ${v}`).join(', ');
        request.log(`N=${record.facts.concurrency} ${record.trial_id}: ${record.outcome}${record.failure_category ? `/${record.failure_category}` : ''}${reasons ? ` (${reasons})` : ''}`);
      },
    });
  } catch (error) {
    // Interrupted: the batches so far stay journaled; the bracket is unknown.
    if (!(error instanceof CapacityInterrupted)) throw error;
  } finally {
    journal.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await executor.teardown().catch((error: unknown) => request.log(`teardown failed: ${error}`));
    rmSync(densityBaselineDir({ run: { runId, stateDir: stateDir() } as RunContext }), { recursive: true, force: true });
    for (const failure of await cleanup.releaseAll()) request.log(`cleanup of ${failure.handle.kind} ${failure.handle.name} failed: ${failure.error}`);
  }
  const at = (n: number | null) => (n === null ? [] : records.filter((r) => Number(r.facts.concurrency) === n).map(deciding));
  const report: CapacityReport = {
    run_id: runId,
    spec_path: request.specPath,
    arm: request.arm,
    workload,
    range,
    batches_per_probe: batches,
    budget: { cpus: base.budget_cpus, memory_mib: base.budget_memory, swap_bytes: 0 },
    bracket,
    decided_by: { largest_passing: at(bracket.largest_passing), smallest_failing: at(bracket.smallest_failing) },
    load_average_1m_end: (await import('node:os')).loadavg()[0]!,
    interrupted,
  };
  writeFileSync(join(dir, CAPACITY_FILE), `${JSON.stringify(report, null, 2)}\n`);
  return { dir, report };
}

/** The terminal answer: the bracket first, then the batches that decided each end, then every probe. */
export function formatCapacity(report: CapacityReport): string {
  const { bracket } = report;
  const arm = armLabel(report.arm);
  const low = bracket.largest_passing === null ? `none (N=${report.range.from} already fails)` : String(bracket.largest_passing);
  const high = bracket.smallest_failing === null ? `none up to ${report.range.to} (capacity >= ${report.range.to})` : String(bracket.smallest_failing);
  const lines = [
    `capacity ${arm} ${report.workload}: largest passing N = ${low}; smallest failing N = ${high}`,
    `  budget CPUs ${report.budget.cpus}, ${report.budget.memory_mib} MiB, zero swap; a probe passes only if all ${report.batches_per_probe} fresh batches pass (it stops at the first failure); load avg at end ${report.load_average_1m_end.toFixed(1)}${report.interrupted ? '; INTERRUPTED' : ''}`,
  ];
  const describe = (batch: DecidingBatch) => {
    const reasons = Object.entries(batch.failure_reasons).map(([k, v]) => `${k} ${v}`).join(', ');
    const wall = batch.wall_ms === null ? '' : ` wall ${(batch.wall_ms / 1000).toFixed(1)} s`;
    const memory = batch.barrier_memory_mib === null ? '' : ` barrier ${batch.barrier_memory_mib.toFixed(0)} MiB`;
    return `    ${batch.trial_id}: ${batch.outcome}${batch.failure_category ? `/${batch.failure_category}` : ''} validated ${batch.validated ?? '?'}/${batch.concurrency}${wall}${memory}${reasons ? ` (${reasons})` : ''}`;
  };
  if (report.decided_by.largest_passing.length) lines.push(`  decided the lower end (N=${bracket.largest_passing}):`, ...report.decided_by.largest_passing.map(describe));
  if (report.decided_by.smallest_failing.length) lines.push(`  decided the upper end (N=${bracket.smallest_failing}):`, ...report.decided_by.smallest_failing.map(describe));
  lines.push(`  probes in order: ${bracket.probes.map((p) => `${p.concurrency} ${p.passed ? 'pass' : 'fail'} ${p.batches_passed}/${p.batches_run}`).join(', ')}`);
  const monotone = bracket.probes.every((p) => (p.passed ? bracket.smallest_failing === null || p.concurrency < bracket.smallest_failing : bracket.largest_passing === null || p.concurrency > bracket.largest_passing));
  if (!monotone) lines.push('  WARNING: pass/fail was not monotone in N across the probes; the bracket assumes it is');
  return lines.join('\n');
}
