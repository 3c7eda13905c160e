/**
 * An experiment kind: how to plan a run and how to run one planned trial. The generic loop in
 * harness/run drives every kind the same way (journal, resume, progress, signals, cleanup), so a
 * kind only says what a trial is. A "trial" is the unit that gets one journal line: one launch for
 * shell-ready/repair/command, one batch for density, one prepare attempt for replay, one launch
 * (cold or warm) for lazy-image.
 */
import type { Executor, RunContext } from './executor.ts';
import type { Plan, PlannedTrial } from '../plan/plan.ts';
import type { TrialRecord } from '../journal/trial-record.ts';
import type { Spec } from '../spec/schema.ts';
import type { ArmRef } from '../journal/trial-record.ts';
import type { KindAnalysis } from '../analyze/kind-analysis.ts';
import type { KindSpec } from '../spec/kind-spec.ts';

export type { KindAnalysis, KindExtension, KindExtensionOutput } from '../analyze/kind-analysis.ts';

export interface ExperimentContext {
  run: RunContext;
  spec: Spec;
  /** Bundle directory being written. */
  bundleDir: string;
  /** The prepared executor of an arm (prepare() already called for every arm in the plan). */
  executorFor(arm: ArmRef): Executor;
}

/**
 * One experiment kind's descriptor: how to run it (below) and how to analyse it (`analysis`: the
 * evidence scenario, how records group into arms, primary metrics, extra files). Generic analysis,
 * reports and reproduce ask the descriptor and never switch on the kind's name.
 */
export interface Experiment {
  readonly kind: string;
  /** Its spec section and cross-field rules (the loader validates them; see harness/spec/kind-spec.ts). */
  readonly spec: KindSpec;
  readonly analysis: KindAnalysis;
  /** The schedule; default kinds use harness/plan buildPlan (randomized complete blocks). */
  plan(spec: Spec): Plan;
  /** Backends whose executors the run must probe and prepare (default: the spec's arms). */
  executorArms(spec: Spec): ArmRef[];
  /** Once per run before the first trial, outside timing (fixtures, servers). */
  prepare(ctx: ExperimentContext): Promise<void>;
  /** Run one planned trial and return its complete record; must not throw for task failures. */
  runTrial(planned: PlannedTrial, ctx: ExperimentContext): Promise<TrialRecord>;
  /** Once per run after the last trial (also on interrupt). Idempotent. */
  teardown(ctx: ExperimentContext): Promise<void>;
}
