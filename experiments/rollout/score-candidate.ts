/**
 * Scoring one candidate (the rollout kind's evaluator stage, shared with the replay kind's
 * continued attempts, issue 19): the task's evaluator builds a host scoring workspace (baseline +
 * candidate + its tests), a FRESH sandbox on the one scoring backend runs the evaluator's command
 * over it, and the evaluator parses the score. Never the agent's sandbox, never the baseline. A
 * scoring sandbox that cannot start, times out or dies, and output the evaluator cannot judge, are
 * infrastructure failures with a category — never reward 0. The caller finishes `trial` (if set)
 * with the scoring executor once it is done with the attempt.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loopTurns } from '../../harness/schedule/index.ts';
import type { Executor, ExitInfo, OutputLine, TrialContext } from '../../harness/contracts/executor.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';
import type { CandidateFiles, TaskEvaluator, TaskScore } from './task-contract.ts';

export interface ScoringInput {
  evaluator: TaskEvaluator;
  candidate: CandidateFiles;
  scoringExecutor: Executor;
  /** Host scratch of this score: the scoring workspace and the scoring sandbox's trial dir go below it. */
  scratchDir: string;
  /** Builds the scoring sandbox's TrialContext (trial dir, baseline = the scoring workspace). */
  trialFor(trialDir: string, scoringWorkspace: string): TrialContext;
  /** Register what stops the scoring sandbox (harness interrupt). */
  onKill?(listener: () => void): void;
}

export interface ScoringFacts {
  exit_code: number | null;
  ms: number;
  stdout_tail: string;
}

export interface ScoringResult {
  /** The parsed score, or null when the stage failed (then `failure` says why). */
  score: TaskScore | null;
  /** `workspace`: the evaluator could not stage; `start`: no scoring sandbox; `sandbox`: it timed out or
   *  died; `evaluator`: its output could not be judged. */
  failure: { category: FailureCategory; note: string; stage: 'workspace' | 'start' | 'sandbox' | 'evaluator' } | null;
  scoring: ScoringFacts | null;
  /** hrtime when the score was parsed (null when the sandbox never produced output to parse). */
  parsedNs: bigint | null;
  /** The scoring sandbox's trial, once one was made (the caller finishes it). */
  trial: TrialContext | null;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function scoreCandidate(input: ScoringInput): Promise<ScoringResult> {
  const scoringDir = join(input.scratchDir, 'scoring-workspace');
  // On this thread, not the thread pool: measured in harness-scale, a pool mkdir cost more CPU
  // (the hand-off to a pool thread and back) and no less lag, now that the attempt's steps take
  // turns on the loop (loopTurns).
  mkdirSync(scoringDir, { recursive: true });
  try {
    await input.evaluator.stageScoringWorkspace(scoringDir, input.candidate);
  } catch (error) {
    return { score: null, failure: { category: 'recording_failed', note: `scoring workspace: ${errorText(error)}`, stage: 'workspace' }, scoring: null, parsedNs: null, trial: null };
  }
  const trialDir = join(input.scratchDir, 'scoring');
  mkdirSync(trialDir, { recursive: true });
  const trial = input.trialFor(trialDir, scoringDir);
  const scoreStart = process.hrtime.bigint();
  let scoringExit: ExitInfo;
  let scoringLines: readonly OutputLine[];
  try {
    await input.scoringExecutor.stageWorkspace(trial);
    const scoring = await input.scoringExecutor.launch(trial, { argv: [...input.evaluator.scoringArgv], env: { PYTHONDONTWRITEBYTECODE: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }, stdin: 'none' });
    input.onKill?.(() => void scoring.kill('harness stopped the rollout'));
    scoringExit = await scoring.exit;
    scoringLines = scoring.lines;
  } catch (error) {
    return { score: null, failure: { category: 'setup_failed', note: `scoring sandbox failed to start: ${errorText(error)}`, stage: 'start' }, scoring: null, parsedNs: null, trial };
  }
  await loopTurns.take();
  const stdout = scoringLines.filter((l) => l.stream === 'stdout').map((l) => l.text).join('\n');
  const stderr = scoringLines.filter((l) => l.stream === 'stderr').map((l) => l.text).join('\n');
  const scoring: ScoringFacts = { exit_code: scoringExit.exitCode, ms: Number(scoringExit.tExitNs - scoreStart) / 1e6, stdout_tail: stdout.slice(-400) };
  if (scoringExit.timedOut || scoringExit.infraFailure) {
    return { score: null, failure: { category: scoringExit.timedOut ? 'timeout' : scoringExit.infraFailure!.category, note: `scoring sandbox: ${scoringExit.timedOut ? 'timed out' : scoringExit.infraFailure!.reason}`, stage: 'sandbox' }, scoring, parsedNs: null, trial };
  }
  const score = await input.evaluator.parseScore({ exitCode: scoringExit.exitCode, stdout, stderr });
  const parsedNs = process.hrtime.bigint();
  if (score.evaluatorError) return { score: null, failure: { category: 'recording_failed', note: `evaluator could not judge: ${score.evaluatorError}`, stage: 'evaluator' }, scoring, parsedNs, trial };
  return { score, failure: null, scoring, parsedNs, trial };
}
