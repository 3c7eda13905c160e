/**
 * The `checkpoint` kind (issue 18): per trial, one parent reaches a mid-rollout state, is
 * checkpointed, and K children are branched from the one checkpoint; each child is checked for what
 * survived (files byte for byte; the in-memory counter where the mechanism claims process state)
 * and diverges; siblings, the frozen parent and the host baseline must stay untouched. The
 * mechanics live in executors/checkpoint/ (one mechanism per backend); this module drives them.
 * An arm whose mechanism cannot work here records every trial as failed/setup_failed with the
 * reason in facts.unavailable, so checkpoint-summary.csv lists it as unavailable, never absent.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckpointMechanism, MechanismTrial } from '../../executors/checkpoint/mechanism.ts';
import { createCheckpointMechanism } from '../../executors/checkpoint/registry.ts';
import type { BackendName } from '../../harness/contracts/executor.ts';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { specArms } from '../../harness/plan/plan.ts';
import { runScratchDir } from '../../harness/state-dir.ts';
import { baseRecord } from '../trial-experiment.ts';
import { checkpointKindAnalysis } from './checkpoint-analysis.ts';
import { judgeCheckpoint } from './checkpoint-judge.ts';
import { buildCheckpointPlan, checkpointSection } from './checkpoint-plan.ts';
import { checkpointRecord } from './checkpoint-record.ts';
import { runCheckpointTrial } from './checkpoint-trial.ts';
import { stateProgram, writeCheckpointBaseline } from './state-program.ts';
import { checkpointSpecSection } from './checkpoint-spec.ts';

interface ArmState {
  mechanism: CheckpointMechanism | null;
  /** Why this arm cannot checkpoint here (probe or prepare), or null. */
  unavailable: string | null;
  details: Record<string, string>;
}

const arms = new Map<string, ArmState>();
const baselineDir = (ctx: Pick<ExperimentContext, 'run'>) => join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'checkpoint-baseline');

async function prepareArm(ctx: ExperimentContext, arm: ArmRef): Promise<ArmState> {
  const mechanism = createCheckpointMechanism(arm.backend as BackendName, arm.variant);
  if (!mechanism) return { mechanism: null, unavailable: `no checkpoint mechanism for backend ${arm.backend}`, details: {} };
  const probe = await mechanism.probe().catch((error: unknown) => ({ available: false, reason: `probe crashed: ${error}`, fix: undefined, details: {} as Record<string, string> }));
  if (!probe.available) return { mechanism, unavailable: `${probe.reason}${probe.fix ? ` (fix: ${probe.fix})` : ''}`, details: probe.details };
  try {
    await mechanism.prepare(ctx.run);
  } catch (error) {
    return { mechanism, unavailable: `prepare failed: ${error instanceof Error ? error.message : String(error)}`, details: probe.details };
  }
  ctx.run.log(`checkpoint ${armLabel(arm)}: ${mechanism.preserves}`);
  return { mechanism, unavailable: null, details: probe.details };
}

export const checkpointExperiment: Experiment = {
  kind: 'checkpoint',
  spec: { section: checkpointSpecSection },
  analysis: checkpointKindAnalysis,
  plan: buildCheckpointPlan,
  executorArms: (spec) => specArms(spec),
  async prepare(ctx) {
    const dir = baselineDir(ctx);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeCheckpointBaseline(dir, ctx.spec.image.source_date_epoch);
    arms.clear();
    for (const arm of specArms(ctx.spec)) arms.set(armLabel(arm), await prepareArm(ctx, arm));
  },
  async runTrial(planned, ctx) {
    const record = baseRecord(ctx, planned);
    const children = Number(planned.params?.children);
    const state = arms.get(armLabel(planned.arm));
    if (!state || state.unavailable || !state.mechanism) {
      const reason = state?.unavailable ?? 'arm was not prepared';
      return { ...record, failure_category: 'setup_failed', notes: [`unavailable: ${reason}`], facts: { children, unavailable: reason, probe_details: state?.details ?? {} } };
    }
    const section = checkpointSection(ctx.spec);
    const trial: MechanismTrial = {
      run: ctx.run,
      dir: join(runScratchDir(ctx.run.stateDir, ctx.run.runId), planned.trial_id),
      trialId: planned.trial_id,
      baseline: baselineDir(ctx),
      program: stateProgram,
      timeoutMs: ctx.spec.timeout,
      vmMemoryMiB: section.vm_memory,
    };
    try {
      const observation = await runCheckpointTrial({ mechanism: state.mechanism, trial, seed: planned.seed, children, fileMiB: section.file_mib, requestTimeoutMs: ctx.spec.timeout });
      return checkpointRecord(record, observation, judgeCheckpoint(observation));
    } catch (error) {
      return { ...record, failure_category: 'harness_error', notes: [`harness error: ${error instanceof Error ? error.message : String(error)}`], facts: { children } };
    }
  },
  async teardown(ctx) {
    for (const state of arms.values()) await state.mechanism?.teardown().catch(() => undefined);
    arms.clear();
    rmSync(baselineDir(ctx), { recursive: true, force: true });
  },
};
