/**
 * One replay-only trial (issue 19) on one backend: stage a fresh workspace from the trajectory's
 * baseline, launch the in-sandbox driver that re-executes the prefix's calls in order and stops
 * before the next model request, then judge it: every call reported, observation fidelity per call,
 * the workspace holding exactly the prefix's effects, nothing outside the workspace on the host and
 * the baseline unchanged. Timing: completion_ms (launch to exit on the host clock, what reaching the
 * branch point costs in a fresh sandbox), ready_ms (the driver's READY: sandbox start), and the
 * in-sandbox time of each call (call_<k>_ms), their sum replay_ms and per_call_ms = replay_ms / calls.
 */
import type { CandidateFiles, Executor, OutputLine, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding } from '../../../harness/contracts/executor.ts';
import type { ExperimentContext } from '../../../harness/contracts/experiment-kind.ts';
import type { FailureCategory, TrialRecord } from '../../../harness/journal/trial-record.ts';
import type { PlannedTrial } from '../../../harness/plan/plan.ts';
import { treeDigest } from '../../../executors/workspace-diff.ts';
import { baselineFiles, type ExpectedEffects } from '../fixture-task.ts';
import { checkEffects, outsideEntries, trialDirEntries } from './effects-check.ts';
import { callFidelity, fidelityCounts, type CallFidelity, type ReplayedCall } from './fidelity.ts';
import type { PrefixInput } from './replay-inputs.ts';

const CALL_MARKER = 'REPLAY_CALL ';
const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

export interface DriverReport {
  calls: (ReplayedCall & { index: number; id: string })[];
  ready: OutputLine[];
  results: OutputLine[];
  problems: string[];
}

export function readDriverOutput(lines: readonly OutputLine[]): DriverReport {
  const report: DriverReport = { calls: [], ready: [], results: [], problems: [] };
  for (const line of lines) {
    if (line.stream !== 'stdout') continue;
    if (line.text.trim() === 'REFERENCE_READY') report.ready.push(line);
    else if (line.text.startsWith('REFERENCE_RESULT ')) report.results.push(line);
    else if (line.text.startsWith(CALL_MARKER)) {
      try {
        const doc = JSON.parse(line.text.slice(CALL_MARKER.length)) as { index: number; id: string; exit_code: number; output_b64: string; duration_ns: number };
        report.calls.push({ index: doc.index, id: doc.id, exitCode: doc.exit_code, output: Buffer.from(doc.output_b64, 'base64').toString('utf8'), durationMs: doc.duration_ns / 1e6 });
      } catch (error) {
        report.problems.push(`unreadable REPLAY_CALL line: ${(error as Error).message}`);
      }
    }
  }
  return report;
}

/** A call that failed because its program is not in the sandbox: exit 127 and the shell's "not found". */
export function missingBinary(call: ReplayedCall, recordedExit: number | null): string | null {
  if (call.exitCode !== 127 || recordedExit === 127) return null;
  const match = /(?:^|\n)(?:[^\n]*: )?([^\s:]+): (?:command )?not found/.exec(call.output);
  return match ? match[1]! : /not found/.test(call.output) ? 'unknown' : null;
}

/** What mode `continue` adds: the continuation's expected effects and its own checks after exit. */
export interface ContinuationJudge {
  /** Ground-truth effects of replay + continuation (replaces the prefix's own); null when the task's evaluator judges the result instead. */
  expected: ExpectedEffects | null;
  /** `failure`: an infrastructure failure of the judging itself (e.g. the evaluator could not score): the trial fails with it. */
  judge(lines: readonly OutputLine[], running: RunningTrial, candidates: CandidateFiles, report: DriverReport): Promise<{ validity: Record<string, 'pass' | 'fail'>; metrics: Record<string, number>; facts: Record<string, unknown>; notes: string[]; failure?: { category: FailureCategory; note: string } }>;
  /** A continuation's own reading of a non-zero exit (a CLI refusing its seeded session is setup_failed); null: the default mapping. */
  failedExit?(exitCode: number | null, lines: readonly OutputLine[]): { category: FailureCategory; notes: string[]; facts: Record<string, unknown> } | null;
}

export interface ReplayOnlyTrial {
  planned: PlannedTrial;
  ctx: ExperimentContext;
  input: PrefixInput;
  task: TaskCommand;
  executor: Executor;
  trial: TrialContext;
  record: TrialRecord;
  continuation?: ContinuationJudge;
  /** After collect: extra checks of the workspace the trial left (mode branch-point: its state digest). */
  observe?(candidates: CandidateFiles): Promise<{ validity: Record<string, 'pass' | 'fail'>; facts: Record<string, unknown> }>;
}

export async function runReplayOnly({ planned, ctx, input, task, executor, trial, record, continuation, observe }: ReplayOnlyTrial): Promise<TrialRecord> {
  const { entry } = input;
  const facts: Record<string, unknown> = { ...record.facts, mode: continuation ? 'continue' : 'replay-only', replay_calls_planned: input.calls.length };
  if (input.unsupported.length > 0) {
    return { ...record, outcome: 'failed', failure_category: 'setup_failed', notes: [`the prefix has calls the replayer cannot re-execute: ${input.unsupported.join(', ')}`], facts: { ...facts, replay_failure_category: 'unsupported_tool' } };
  }
  const baselineBefore = treeDigest(entry.workspace);
  const prepareStart = process.hrtime.bigint();
  let binding: WorkspaceBinding;
  try {
    binding = await executor.stageWorkspace(trial);
  } catch (error) {
    return { ...record, outcome: 'failed', failure_category: 'setup_failed', notes: [`workspace staging failed: ${error instanceof Error ? error.message : error}`], facts };
  }
  const prepareMs = msBetween(prepareStart, process.hrtime.bigint());
  const besideBefore = trialDirEntries(trial.trialDir);
  let running: RunningTrial;
  try {
    running = await executor.launch(trial, task);
  } catch (error) {
    return { ...record, outcome: 'failed', failure_category: 'setup_failed', metrics: { prepare_ms: prepareMs }, notes: [`launch failed: ${error instanceof Error ? error.message : error}`], facts };
  }
  const killer = ctx.run.cleanup.register('process', `trial ${planned.trial_id}`, () => running.kill('harness interrupted'));
  const exit = await running.exit;
  ctx.run.cleanup.forget(killer);
  const outside = outsideEntries(besideBefore, trialDirEntries(trial.trialDir));
  const completionMs = msBetween(running.tSpawnNs, exit.tExitNs);
  const report = readDriverOutput(running.lines);
  const timed = { exit_code: exit.exitCode, t_spawn_ns: running.tSpawnNs.toString(), completion_ms: completionMs };
  const tail = running.lines.slice(-6).map((l) => `${l.stream}: ${l.text.slice(0, 200)}`);
  facts.timing = running.timing ?? { path: 'node' };
  if (exit.timedOut) return { ...record, ...timed, completion_ms: null, outcome: 'failed', failure_category: 'timeout', metrics: { prepare_ms: prepareMs }, notes: ['the replay exceeded the spec timeout and was killed'], facts };
  if (exit.infraFailure) return { ...record, ...timed, outcome: 'failed', failure_category: exit.infraFailure.category, metrics: { prepare_ms: prepareMs }, notes: [exit.infraFailure.reason, ...tail], facts };
  if (exit.exitCode !== 0) {
    const own = continuation?.failedExit?.(exit.exitCode, running.lines);
    if (own) return { ...record, ...timed, outcome: 'failed', failure_category: own.category, metrics: { prepare_ms: prepareMs }, notes: [...own.notes, ...tail], facts: { ...facts, ...own.facts } };
    // continue.sh: 95 the replay itself, 96/97 the forwarder, 3 the model service, 4 max turns, 2 the agent
    const category: FailureCategory = continuation && exit.exitCode === 3 ? 'upstream_failed' : continuation && (exit.exitCode === 96 || exit.exitCode === 97) ? 'setup_failed' : 'task_failed';
    return { ...record, ...timed, outcome: 'failed', failure_category: category, metrics: { prepare_ms: prepareMs }, notes: [`${continuation ? 'continuation' : 'replay driver'} exited ${exit.exitCode ?? exit.signal}`, ...tail], facts };
  }

  const candidates = await executor.collect(trial, binding);
  const baselineAfter = treeDigest(entry.workspace);
  const fidelity: CallFidelity[] = report.calls.map((call) => callFidelity(call.index, input.calls[call.index] ?? { id: call.id, command: '', observation: '', exitCode: null, fresh: false }, call));
  const missing = report.calls.map((call) => missingBinary(call, input.calls[call.index]?.exitCode ?? null)).filter((name): name is string => name !== null);
  const expected = continuation ? continuation.expected : entry.task.effects;
  const effects = expected ? await checkEffects(candidates, expected, baselineFiles(entry.task.userText)) : null;
  const continued = continuation ? await continuation.judge(running.lines, running, candidates, report) : null;
  const callsInOrder = report.calls.length === input.calls.length && report.calls.every((c, i) => c.index === i && c.id === input.calls[i]!.id);
  const counts = fidelityCounts(fidelity);
  const validity: Record<string, 'pass' | 'fail'> = {
    ready_marker_once: report.ready.length === 1 ? 'pass' : 'fail',
    result_marker_once: report.results.length === 1 ? 'pass' : 'fail',
    calls_replayed_in_order: callsInOrder && report.problems.length === 0 ? 'pass' : 'fail',
    host_baseline_unchanged: baselineBefore === baselineAfter ? 'pass' : 'fail',
    no_effects_outside_workspace: outside.length === 0 ? 'pass' : 'fail',
    workspace_exact_effects: effects === null || effects.exact ? 'pass' : 'fail',
    no_unexpected_differences: counts['differs-unexpected'] === 0 ? 'pass' : 'fail',
  };
  if (continued) Object.assign(validity, continued.validity);
  const observed = observe ? await observe(candidates) : null;
  if (observed) Object.assign(validity, observed.validity);
  if (binding.claimsStaging) validity.host_original_unchanged = treeDigest(binding.hostPath) === baselineBefore ? 'pass' : 'fail';
  const durations = report.calls.map((c) => c.durationMs);
  const replayMs = durations.reduce((a, b) => a + b, 0);
  const metrics: Record<string, number> = { completion_ms: completionMs, prepare_ms: prepareMs };
  if (report.ready[0]) metrics.ready_ms = msBetween(running.tSpawnNs, report.ready[0].tNs);
  // an empty prefix (a from-scratch run) has no per-call time
  if (callsInOrder && durations.length > 0) {
    metrics.replay_ms = replayMs;
    metrics.per_call_ms = replayMs / durations.length;
    durations.forEach((ms, k) => (metrics[`call_${k}_ms`] = ms));
  }
  if (continued) Object.assign(metrics, continued.metrics);
  const notes: string[] = [...(continued?.notes ?? [])];
  const failed = Object.entries(validity).filter(([, v]) => v === 'fail').map(([k]) => k);
  if (failed.length > 0) notes.push(`failed: ${failed.join(', ')}`);
  if (outside.length > 0) notes.push(`side effects outside the workspace: ${outside.join(', ')}`);
  if (effects && !effects.exact) notes.push(`workspace effects differ from the ground truth: unexpected ${JSON.stringify(effects.unexpected)}, missing ${JSON.stringify(effects.missing)}, missing dirs ${JSON.stringify(effects.missingDirs)}`);
  for (const f of fidelity.filter((f) => f.verdict === 'differs-unexpected')) notes.push(`call ${f.index} differs-unexpected ${f.diff_digest} at ${f.first_difference?.offset}: recorded ${JSON.stringify(f.first_difference?.recorded)} replayed ${JSON.stringify(f.first_difference?.replayed)} (exit ${f.exit_code_recorded} -> ${f.exit_code_replayed})`);
  notes.push(...report.problems);
  Object.assign(facts, {
    fidelity_identical: counts.identical,
    fidelity_differs_expected: counts['differs-expected'],
    fidelity_differs_unexpected: counts['differs-unexpected'],
    calls: fidelity.map((f, k) => ({ ...f, command: input.calls[f.index]?.command ?? null, fresh: input.calls[f.index]?.fresh ?? null, duration_ms: report.calls[k]!.durationMs })),
    // opaque directories (.git) listed once, not file by file
    candidate_files: candidates.changed.filter((path) => !(expected?.opaqueDirs ?? []).some((dir) => path.startsWith(`${dir}/`))),
    claims_staging: binding.claimsStaging,
    baseline_digest_before: baselineBefore,
    baseline_digest_after: baselineAfter,
    outside_entries: outside,
    ...(continued?.facts ?? {}),
    ...(observed?.facts ?? {}),
  });
  let outcome: TrialRecord['outcome'] = failed.length === 0 ? 'ok' : 'invalid';
  let category: FailureCategory | null = null;
  if (continued?.failure) {
    // never a reward of 0: the judging stage itself failed
    outcome = 'failed';
    category = continued.failure.category;
    notes.unshift(continued.failure.note);
  } else if (missing.length > 0) {
    // the sandbox lacks a program the trajectory used: its environment, not the replayer, failed
    outcome = 'failed';
    category = 'setup_failed';
    facts.replay_failure_category = 'missing_binary';
    facts.missing_binaries = [...new Set(missing)];
    notes.unshift(`the sandbox lacks ${[...new Set(missing)].join(', ')} (exit 127, not found): categorized missing_binary`);
  } else if (validity.host_baseline_unchanged === 'fail' || validity.no_effects_outside_workspace === 'fail' || validity.host_original_unchanged === 'fail') {
    category = 'isolation_refused';
    facts.replay_failure_category = 'boundary';
  } else if (validity.ready_marker_once === 'fail' || validity.result_marker_once === 'fail' || validity.calls_replayed_in_order === 'fail') {
    category = 'recording_failed';
  } else if (failed.length > 0) {
    category = 'task_failed';
    facts.replay_failure_category = validity.no_unexpected_differences === 'fail' ? 'fidelity' : 'effects';
  }
  return { ...record, ...timed, ready_ms: metrics.ready_ms ?? null, outcome, failure_category: category, metrics, validity, notes, facts };
}
