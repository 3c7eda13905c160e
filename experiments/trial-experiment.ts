/**
 * The generic launch-one-task trial shared by shell-ready, command, repair and isolation: stage
 * the workspace (timed apart as prepare_ms), spawn, read markers on the host clock, wait for exit,
 * collect candidate files, prove the host original untouched where the backend claims staging,
 * and turn it all into one TrialRecord. A kind only supplies its baseline, its command and its
 * own validity checks.
 */
import type { KindSpec } from '../harness/spec/kind-spec.ts';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CandidateFiles, ExitInfo, OutputLine, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding } from '../harness/contracts/executor.ts';
import { treeDigest } from '../executors/workspace-diff.ts';
import { buildPlan, specArms, type Plan, type PlannedTrial } from '../harness/plan/plan.ts';
import { type FailureCategory, type Outcome, type TrialRecord } from '../harness/journal/trial-record.ts';
import { plannedRecord } from '../harness/journal/record-base.ts';
import type { Spec } from '../harness/spec/schema.ts';
import type { Experiment, ExperimentContext, KindAnalysis } from '../harness/contracts/experiment-kind.ts';
import { runScratchDir } from '../harness/state-dir.ts';
import type { ResourceHandle } from '../harness/run/cleanup-registry.ts';

export const READY_MARKER = 'REFERENCE_READY';
export const RESULT_MARKER = 'REFERENCE_RESULT';

export interface TrialObservation {
  spec: Spec;
  planned: PlannedTrial;
  lines: readonly OutputLine[];
  exit: ExitInfo;
  binding: WorkspaceBinding;
  candidates: CandidateFiles;
  /** Digest of the host side of /workspace before launch and after exit. */
  hostDigestBefore: string;
  hostDigestAfter: string;
  /** Parsed JSON of the single RESULT line, when there is exactly one. */
  result: Record<string, unknown> | null;
}

export interface KindCheck {
  validity: Record<string, 'pass' | 'fail'>;
  /** Category to use when a check fails (default recording_failed for protocol, task_failed for correctness). */
  failureCategory?: FailureCategory;
  notes?: string[];
  metrics?: Record<string, number>;
  facts?: Record<string, unknown>;
}

export interface TaskKind {
  kind: string;
  /** Its spec section / cross-field rules, when it has any (harness/spec/kind-spec.ts). */
  spec?: KindSpec;
  /** How the kind's results are analysed (the descriptor's analysis half). */
  analysis: KindAnalysis;
  /** Write the baseline workspace for this run into `dir` (called once, before the first trial). */
  prepareBaseline(spec: Spec, dir: string): Promise<void>;
  task(spec: Spec): TaskCommand;
  /** Line that marks ready (null: no ready time for this kind). */
  readyMarker(spec: Spec): string | null;
  /** Whether exactly one RESULT line is required. */
  requiresResult(spec: Spec): boolean;
  /** Kind-specific validity checks on top of exit code, markers and staging. */
  check(observation: TrialObservation): Promise<KindCheck>;
  /**
   * This trial's scratch root when it is not the run's (the baseline is `<root>/baseline`, the trial
   * dir `<root>/<trial>`): the isolation kind places fixtures per trial. Default: the run's scratch dir.
   */
  scratchRootFor?(planned: PlannedTrial, ctx: ExperimentContext): string;
}

const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

function markerLines(lines: readonly OutputLine[], marker: string, exact: boolean): OutputLine[] {
  return lines.filter((line) => line.stream === 'stdout' && (exact ? line.text.trim() === marker : line.text.startsWith(`${marker} `) || line.text === marker));
}

function parseResult(lines: OutputLine[]): Record<string, unknown> | null {
  if (lines.length !== 1) return null;
  try {
    const parsed: unknown = JSON.parse(lines[0]!.text.slice(RESULT_MARKER.length).trim() || 'null');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

interface Verdict {
  outcome: Outcome;
  category: FailureCategory | null;
}

/** Infrastructure and exit problems make a trial `failed`; a broken protocol or check makes it `invalid`. */
function verdictFor(exit: ExitInfo, validity: Record<string, 'pass' | 'fail'>, kindCategory: FailureCategory | undefined): Verdict {
  if (exit.timedOut) return { outcome: 'failed', category: 'timeout' };
  if (exit.infraFailure) return { outcome: 'failed', category: exit.infraFailure.category };
  if (exit.exitCode !== 0) return { outcome: 'failed', category: 'task_failed' };
  const failed = Object.entries(validity).filter(([, value]) => value === 'fail').map(([key]) => key);
  if (failed.length === 0) return { outcome: 'ok', category: null };
  if (failed.includes('host_original_unchanged')) return { outcome: 'invalid', category: 'isolation_refused' };
  if (failed.some((key) => key.endsWith('_marker_once'))) return { outcome: 'invalid', category: 'recording_failed' };
  return { outcome: 'invalid', category: kindCategory ?? 'task_failed' };
}

export function baseRecord(ctx: ExperimentContext, planned: PlannedTrial): TrialRecord {
  return plannedRecord(ctx.run.runId, ctx.spec.experiment, planned);
}

function firstLineMs(running: RunningTrial, lines: OutputLine[]): number | null {
  return lines[0] ? msBetween(running.tSpawnNs, lines[0].tNs) : null;
}

/** A fresh, empty per-trial directory, registered for cleanup (release the handle when the trial is done). */
export function freshTrialDir(ctx: ExperimentContext, trialDir: string): ResourceHandle {
  rmSync(trialDir, { recursive: true, force: true });
  mkdirSync(trialDir, { recursive: true });
  return ctx.run.cleanup.register('tempdir', trialDir, () => rmSync(trialDir, { recursive: true, force: true }));
}

/** Per-trial scratch: $SANDBENCH_HOME/tmp/sandbench-<run>/<trial>, so `clean` can find it by run id. */
export function trialScratchDir(ctx: ExperimentContext, trialId: string): string {
  return join(runScratchDir(ctx.run.stateDir, ctx.run.runId), trialId);
}

export function createTrialExperiment(kind: TaskKind): Experiment {
  let baselineDir = '';
  return {
    kind: kind.kind,
    spec: kind.spec ?? {},
    analysis: kind.analysis,
    plan: (spec: Spec): Plan => buildPlan(spec),
    executorArms: (spec) => specArms(spec),
    async prepare(ctx) {
      baselineDir = join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'baseline');
      rmSync(baselineDir, { recursive: true, force: true });
      mkdirSync(baselineDir, { recursive: true });
      await kind.prepareBaseline(ctx.spec, baselineDir);
    },
    async runTrial(planned, ctx) {
      const record = baseRecord(ctx, planned);
      const ownRoot = kind.scratchRootFor?.(planned, ctx);
      const trialDir = ownRoot ? join(ownRoot, planned.trial_id) : trialScratchDir(ctx, planned.trial_id);
      const scratch = freshTrialDir(ctx, trialDir);
      const executor = ctx.executorFor(planned.arm);
      const trial: TrialContext = {
        run: ctx.run,
        trialId: planned.trial_id,
        baselineWorkspace: ownRoot ? join(ownRoot, 'baseline') : baselineDir,
        trialDir,
        timeoutMs: ctx.spec.timeout,
        controls: { cpus: ctx.spec.controls.cpus ?? null, memoryMiB: ctx.spec.controls.memory ?? null },
        budget: null,
      };
      try {
        return await runOneLaunch(kind, ctx, planned, trial, executor, record);
      } catch (error) {
        return { ...record, outcome: 'failed', failure_category: 'harness_error', notes: [`harness error: ${error instanceof Error ? error.message : String(error)}`] };
      } finally {
        await executor.finishTrial(trial).catch(() => undefined);
        await ctx.run.cleanup.release(scratch);
      }
    },
    async teardown() {
      if (baselineDir) rmSync(baselineDir, { recursive: true, force: true });
    },
  };
}

async function runOneLaunch(
  kind: TaskKind,
  ctx: ExperimentContext,
  planned: PlannedTrial,
  trial: TrialContext,
  executor: ReturnType<ExperimentContext['executorFor']>,
  record: TrialRecord,
): Promise<TrialRecord> {
  const prepareStart = process.hrtime.bigint();
  let binding: WorkspaceBinding;
  try {
    binding = await executor.stageWorkspace(trial);
  } catch (error) {
    return { ...record, outcome: 'failed', failure_category: 'setup_failed', notes: [`workspace staging failed: ${error instanceof Error ? error.message : error}`] };
  }
  const prepareMs = msBetween(prepareStart, process.hrtime.bigint());
  const hostDigestBefore = treeDigest(binding.hostPath);
  const task = kind.task(ctx.spec);
  let running: RunningTrial;
  try {
    running = await executor.launch(trial, task);
  } catch (error) {
    return { ...record, outcome: 'failed', failure_category: 'setup_failed', metrics: { prepare_ms: prepareMs }, notes: [`launch failed: ${error instanceof Error ? error.message : error}`] };
  }
  const killer = ctx.run.cleanup.register('process', `trial ${planned.trial_id}`, () => running.kill('harness interrupted'));
  if (task.stdin === 'pipe') running.closeStdin();
  const exit = await running.exit;
  ctx.run.cleanup.forget(killer);
  const candidates = await executor.collect(trial, binding);
  const hostDigestAfter = treeDigest(binding.hostPath);

  const readyMarker = kind.readyMarker(ctx.spec);
  const readyLines = readyMarker ? markerLines(running.lines, readyMarker, true) : [];
  const resultLines = markerLines(running.lines, RESULT_MARKER, false);
  const observation: TrialObservation = {
    spec: ctx.spec, planned, lines: running.lines, exit, binding, candidates, hostDigestBefore, hostDigestAfter, result: parseResult(resultLines),
  };
  const kindCheck = await kind.check(observation);
  const validity: Record<string, 'pass' | 'fail'> = {};
  if (readyMarker) validity.ready_marker_once = readyLines.length === 1 ? 'pass' : 'fail';
  if (kind.requiresResult(ctx.spec)) validity.result_marker_once = resultLines.length === 1 && observation.result ? 'pass' : 'fail';
  if (binding.claimsStaging) validity.host_original_unchanged = hostDigestBefore === hostDigestAfter ? 'pass' : 'fail';
  Object.assign(validity, kindCheck.validity);

  const verdict = verdictFor(exit, validity, kindCheck.failureCategory);
  const readyMs = readyMarker ? firstLineMs(running, readyLines) : null;
  const resultMs = firstLineMs(running, resultLines);
  const completionMs = msBetween(running.tSpawnNs, exit.tExitNs);
  const metrics: Record<string, number> = { completion_ms: completionMs, prepare_ms: prepareMs, ...kindCheck.metrics };
  if (readyMs !== null) metrics.ready_ms = readyMs;
  if (resultMs !== null) metrics.result_ms = resultMs;
  const notes = [...(kindCheck.notes ?? [])];
  if (exit.infraFailure) notes.push(exit.infraFailure.reason);
  if (verdict.outcome !== 'ok') notes.push(...tailOf(running.lines));
  return {
    ...record,
    outcome: verdict.outcome,
    failure_category: verdict.category,
    exit_code: exit.exitCode,
    t_spawn_ns: running.tSpawnNs.toString(),
    ready_ms: readyMs,
    result_ms: resultMs,
    completion_ms: completionMs,
    metrics,
    validity,
    notes,
    facts: {
      ...candidates.facts,
      ...kindCheck.facts,
      candidate_files: candidates.changed,
      claims_staging: binding.claimsStaging,
      host_digest_before: hostDigestBefore,
      host_digest_after: hostDigestAfter,
      signal: exit.signal,
      // Which clock path timed this trial and the launcher's no-op floor (issue 14).
      timing: running.timing ?? { path: 'node' },
    },
  };
}

/** Last lines of output, kept in notes of a failed trial so the reason is visible without rerunning. */
function tailOf(lines: readonly OutputLine[]): string[] {
  return lines.slice(-8).map((line) => `${line.stream}: ${line.text.slice(0, 300)}`);
}
