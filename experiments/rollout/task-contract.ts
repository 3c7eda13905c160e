/**
 * The contract between the rollout kind (experiments/rollout/*.ts: trials, cells, measurements) and
 * its task sets (experiments/rollout/tasks/: built-in generated tasks and SWE-bench-format
 * instances, their evaluators, the built-in agent). A task says what the baseline workspace is,
 * what the scripted model answers for an attempt, and how a candidate is scored; the kind decides
 * where the agent runs, where scoring runs (a fresh scoring sandbox, never the agent's sandbox and
 * never the host baseline) and what is retained.
 */

/** Where a task came from: sandbench's deterministic generator, a SWE-bench/SWE-Gym instance file, or Harbor task directories. */
export type TaskSource = 'builtin' | 'swe-bench' | 'harbor';

/** One attempt's scripted path: the right fix, or a seeded wrong path (a fix that breaks another test). */
export type AttemptPath = 'right' | 'wrong';

export interface RolloutTask {
  /** Task id; also the model-script task id prefix (URL-safe: letters, digits, `.`, `_`, `-`). */
  readonly id: string;
  readonly source: TaskSource;
  /** Where the task was read from, when it is a place of its own (a Harbor task directory). */
  readonly origin?: string;
  /** Baseline repository directory (a deterministic git repo at `baseCommit`); never modified. */
  readonly repoDir: string;
  readonly baseCommit: string;
  /** The user prompt handed to the agent. */
  readonly prompt: string;
  /** Model script (sandbench-model-script/1) holding this task's script tasks. */
  readonly scriptPath: string;
  /** The model-script task id that answers an attempt on `path` (e.g. `<id>` or `<id>.wrong`). */
  scriptTaskId(path: AttemptPath): string;
  readonly evaluator: TaskEvaluator;
  /** The tests the reward needs, as the task names them: what the solvability pre-pass checks. */
  readonly tests: TaskTests;
  /** The task's known-good solution (the oracle): what the pre-pass proves solvable and the oracle arm applies. */
  readonly gold: GoldSolution;
}

export interface TaskTests {
  /** Must fail on the baseline and pass with the gold solution. */
  readonly failToPass: readonly string[];
  /** Must pass with the gold solution. */
  readonly passToPass: readonly string[];
}

/**
 * The task's gold solution, applied to a copy of the baseline. `patch`: a git diff (SWE-bench's gold
 * patch; applied with `git apply`, no task code runs). `shell`: the right path's shell commands of a
 * script shipped with sandbench (the built-in tasks), run with bash in the copy.
 */
export type GoldSolution = { readonly kind: 'patch'; readonly patch: string } | { readonly kind: 'shell'; readonly commands: readonly string[] };

export interface TaskEvaluator {
  /** Recorded with every score (`evaluator_version`); changes whenever scoring would. */
  readonly version: string;
  /**
   * Build the scoring workspace in `dir` (empty, on the host): the baseline files, the candidate
   * files laid over them, plus whatever the evaluator adds (e.g. a SWE-bench test patch). The
   * candidate is read from `candidateDir` (the files the agent changed, relative paths) and
   * `deleted` (paths the agent removed).
   */
  stageScoringWorkspace(dir: string, candidate: CandidateFiles): Promise<void>;
  /** argv run inside the fresh scoring sandbox with cwd /workspace (stdlib python3 + git only). */
  readonly scoringArgv: readonly string[];
  /**
   * The scoring command stops the tests itself after this long and still prints its score (a
   * hanging candidate is reward 0). Give the scoring sandbox more time than this (start-up
   * included), else a hang is cut off by the sandbox and becomes an evaluator error instead.
   */
  readonly deadlineMs?: number;
  /** The score from the scoring command's outcome; a crash of the tests is reward 0, not an error. */
  parseScore(outcome: { exitCode: number | null; stdout: string; stderr: string }): TaskScore | Promise<TaskScore>;
}

/**
 * A candidate on disk (`dir`: a host diff, which keeps symlinks and modes) or in memory (`contents`:
 * an executor's collect, regular files only). The rollout loop holds its candidates in memory: an
 * extraction to disk and its removal cost the harness 0.4 ms per attempt (docs/harness-scale.md).
 */
export type CandidateFiles = CandidatePaths & ({
  /** Directory holding the changed/added files at their workspace-relative paths. */
  readonly dir: string;
} | {
  /** The bytes of each changed path. */
  readonly contents: ReadonlyMap<string, Buffer>;
});

interface CandidatePaths {
  /** Workspace-relative paths that were added or modified. */
  readonly changed: readonly string[];
  /** Workspace-relative paths the agent deleted. */
  readonly deleted: readonly string[];
}

export interface TaskScore {
  /** 1 when every required test passes, else 0 (binary like SWE-bench's resolved). */
  readonly reward: number;
  readonly passed: readonly string[];
  readonly failed: readonly string[];
  /** Each required test's status as the grader reported it (pass, fail, error, skip, missing, ...). */
  readonly statuses?: Readonly<Record<string, string>>;
  /** Which grader decided and how (swebench's resolution FULL/PARTIAL/NO and parser; `both`: the unittest grader's reward beside it). */
  readonly grade?: TaskGrade;
  /** Set when the evaluator itself could not judge (unparseable output): an infrastructure failure, not reward 0. */
  readonly evaluatorError?: string;
}

export interface TaskGrade {
  readonly grader: string;
  readonly parser: string;
  readonly resolution: 'FULL' | 'PARTIAL' | 'NO';
  /** swebench found test results in the log (else its verdict is NO by its own rules). */
  readonly parsed: boolean;
  readonly grade_ms: number;
  /** `grader: both`: the stdlib unittest grader's reward on the same run (null when it could not judge). */
  readonly unittest_reward?: number | null;
  readonly unittest_error?: string | null;
  /** Harbor verifier (tasks/harbor-evaluator.ts): the rewards as test.sh wrote them, its exit code, and why it scored 0 when it wrote no usable reward. */
  readonly harbor_rewards?: Readonly<Record<string, number>> | null;
  readonly verifier_exit?: number | null;
  readonly note?: string | null;
}

/** A loaded task set: what a spec's `rollout.tasks` names. */
export interface TaskSet {
  readonly id: string;
  readonly tasks: readonly RolloutTask[];
}

/**
 * How the rollout kind runs the built-in agent (experiments/rollout/agent/agent.py, stdlib
 * python3), added by the kind's side so both halves agree on one command line:
 *
 *   python3 <agent dir>/agent.py --base-url URL --prompt-file FILE --trajectory FILE
 *                                [--max-turns N] [--tool-timeout SECONDS]
 *
 * cwd is /workspace. URL is the model service with the route prefix already appended
 * (http://127.0.0.1:PORT/t/<script task>/a/<attempt>; the agent appends /v1/chat/completions):
 * the kind's entry script resolves SANDBENCH_SERVICE_URL or starts the forwarder first. FILE paths
 * are relative to /workspace under `.sandbench-rollout/` (the kind excludes that directory from the
 * candidate files and reads the trajectory from it). Exit codes: BUILTIN_AGENT_EXIT.
 */
export interface BuiltinAgentArgs {
  readonly baseUrl: string;
  readonly promptFile: string;
  readonly trajectory: string;
  readonly maxTurns?: number;
  readonly toolTimeoutSeconds?: number;
}

/** Workspace-relative directory for the agent's prompt and trajectory; never part of a candidate. */
export const ROLLOUT_META_DIR = '.sandbench-rollout';

/** The built-in agent's exit codes; the kind maps them to failure categories (model errors → upstream_failed). */
export const BUILTIN_AGENT_EXIT = {
  /** Final text reply received. */
  done: 0,
  /** The model service answered an HTTP error (5xx / 4xx) or the connection failed: upstream. */
  modelError: 3,
  /** max turns reached without a final reply: the task's own failure. */
  maxTurns: 4,
  /** Bad arguments or an internal crash of the agent. */
  agentError: 2,
} as const;
