/**
 * The density (active capacity) kind: one journal record per batch. A batch passes only if every
 * worker is valid and every batch process was inside the verified budget at the barrier.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { specArms } from '../../harness/plan/plan.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { baseRecord, trialScratchDir } from '../trial-experiment.ts';
import { containerClientsOf, runDensityBatch, vmControlsOf, type DensityBatchOptions, type DensityWorkload } from './density-batch.ts';
import { buildDensityPlan, densitySection } from './density-plan.ts';
import { densityRecord } from './density-record.ts';
import { writeDensityBaseline } from './density-workspace.ts';
import { runScratchDir } from '../../harness/state-dir.ts';
import { densityKindAnalysis } from './density-analysis.ts';
import { densitySpecSection } from './density-spec.ts';

/** Where a run's density baseline lives (named with the run id so `clean` finds it). */
export function densityBaselineDir(ctx: Pick<ExperimentContext, 'run'>): string {
  return join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'density-baseline');
}

export async function prepareDensityBaseline(ctx: Pick<ExperimentContext, 'run' | 'spec'>): Promise<string> {
  const dir = densityBaselineDir(ctx);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await writeDensityBaseline(dir, ctx.spec.image.source_date_epoch);
  return dir;
}

/** Options of one batch of a cell, from the spec (shared by the planned run and the capacity search). */
export function batchOptions(ctx: ExperimentContext, arm: PlannedTrial['arm'], trialId: string, workload: DensityWorkload, concurrency: number): DensityBatchOptions {
  const density = densitySection(ctx.spec);
  const executor = ctx.executorFor(arm);
  return {
    run: ctx.run,
    executor,
    trialId,
    scratchDir: trialScratchDir(ctx, trialId),
    baselineWorkspace: densityBaselineDir(ctx),
    concurrency,
    workload,
    payloadMiB: density.payload_mib,
    budgetCpus: density.budget_cpus,
    budgetMemoryMiB: density.budget_memory,
    vmMemoryMiB: density.vm_memory,
    vmTcgTbSizeMiB: density.vm_tcg_tb_size,
    readyTimeoutMs: density.ready_timeout,
    timeoutMs: ctx.spec.timeout,
    // A runtime helper started outside any --cgroup-parent (docker's containerd-shim, by containerd) is
    // moved in at the barrier and recorded in membership.adopted (its earlier memory charges stay outside).
    adoptRuntimeHelpers: executor.traits.runtimeHelpersOutsideCgroup,
    containerClients: density.container_clients,
  };
}

export async function runPlannedBatch(planned: PlannedTrial, ctx: ExperimentContext): Promise<TrialRecord> {
  const record = baseRecord(ctx, planned);
  const workload = String(planned.params?.workload ?? 'useful') as DensityWorkload;
  const concurrency = Number(planned.params?.concurrency);
  try {
    const options = batchOptions(ctx, planned.arm, planned.trial_id, workload, concurrency);
    const result = await runDensityBatch(options);
    return densityRecord(record, { workload, concurrency, vmControls: vmControlsOf(options), containerClients: containerClientsOf(options) }, result);
  } catch (error) {
    return { ...record, outcome: 'failed', failure_category: 'harness_error', notes: [`harness error: ${(error as Error).message}`], facts: { workload, concurrency } };
  }
}

export const densityExperiment: Experiment = {
  kind: 'density',
  spec: { section: densitySpecSection, starter: 'experiments/density/starter.yaml', repeatsWith: 'density.batches' },
  analysis: densityKindAnalysis,
  plan: buildDensityPlan,
  executorArms: (spec) => specArms(spec),
  async prepare(ctx) {
    await prepareDensityBaseline(ctx);
  },
  runTrial: runPlannedBatch,
  async teardown(ctx) {
    rmSync(densityBaselineDir(ctx), { recursive: true, force: true });
  },
};
