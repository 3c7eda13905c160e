/**
 * The task-specific evaluator of every shipped task source: the baseline's files with the
 * candidate laid over them (plus a SWE-bench test patch), scored by running the task's listed
 * tests with stdlib unittest through score_runner.py inside the scoring sandbox. Reward 1 iff
 * every FAIL_TO_PASS and PASS_TO_PASS test passes (SWE-bench's "resolved"). Output the runner did
 * not produce — no score line, a broken line, a required test it did not report — is an
 * evaluatorError (infrastructure), never reward 0.
 */
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fchmodSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { z } from 'zod';
import { UserError } from '../../../harness/errors.ts';
import { loopTurns } from '../../../harness/schedule/index.ts';
import { runHelper } from '../../../executors/launch/helper-command.ts';
import { PROJECT_ROOT, stateDir } from '../../../harness/state-dir.ts';
import { ROLLOUT_META_DIR, type CandidateFiles, type TaskEvaluator, type TaskScore } from '../task-contract.ts';
import { gitIn } from './git.ts';
import { patchedPaths } from './patch-files.ts';
import type { TestRef } from './test-ids.ts';

export const SCORE_RUNNER_PATH = join(PROJECT_ROOT, 'experiments', 'rollout', 'tasks', 'score_runner.py');
/** Workspace-relative directory holding the runner and its config in a scoring workspace. */
export const SCORE_DIR = '.sandbench-score';
export const SCORE_PREFIX = 'SANDBENCH_SCORE ';
const SCORE_SCHEMA = 'sandbench-score/1';
/** Bumped whenever this module's staging or judging changes (the runner's bytes are digested apart). */
const EVALUATOR_LOGIC = 2;
/** The runner's own deadline on the tests when the task set gives none. */
export const DEFAULT_TEST_DEADLINE_S = 45;

export interface UnittestEvaluatorConfig {
  /** `builtin` or `swe-bench`: the first part of the version string. */
  readonly label: string;
  /** The baseline repository (its working tree; `.git` is not staged). */
  readonly baselineDir: string;
  readonly failToPass: readonly TestRef[];
  readonly passToPass: readonly TestRef[];
  /** SWE-bench test patch: applied after the candidate, to files reset to the baseline first. */
  readonly testPatch?: string | null;
  /** Deadline of the whole test run inside the runner (default 45 s, under the kind's 60 s scoring timeout). */
  readonly timeoutSeconds?: number;
}

const ScoreLine = z.object({
  schema: z.literal(SCORE_SCHEMA),
  results: z.record(z.string(), z.enum(['pass', 'fail', 'error', 'skip', 'missing', 'crashed', 'timeout'])),
  details: z.record(z.string(), z.string()).optional(),
  child: z.object({ status: z.string(), returncode: z.number().int().nullable(), seconds: z.number() }).optional(),
});

/** A candidate path the scoring workspace must not take: absolute, escaping, or sandbench's own. */
function candidatePathProblem(path: string): string | null {
  if (path === '' || isAbsolute(path)) return 'is absolute or empty';
  const clean = normalize(path);
  if (clean === '..' || clean.startsWith(`..${sep}`)) return 'escapes the workspace';
  return null;
}

/**
 * Paths the candidate never contributes: git metadata, the rollout's own files, the scorer's, and
 * bytecode caches an agent CLI's python runs left (scoring compiles from the candidate's sources).
 */
function ignoredCandidatePath(path: string): boolean {
  const parts = normalize(path).split(sep);
  const first = parts[0];
  return first === '.git' || first === ROLLOUT_META_DIR || first === SCORE_DIR || parts.includes('__pycache__') || path.endsWith('.pyc');
}

/** A regular file with no other link: overwriting it in place changes nothing else. */
function isSoleRegularFile(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isFile() && stat.nlink === 1;
  } catch {
    return false;
  }
}

function copyEntry(from: string, to: string): void {
  // A changed file over its baseline copy: overwritten in place (copyFile truncates and sets the
  // source's mode), so the fixture disk allocates no inode for it; on this disk each allocation
  // scans past recently deleted inodes while a campaign churns (docs/harness-scale.md).
  if (lstatSync(from).isFile() && isSoleRegularFile(to)) {
    copyFileSync(from, to);
    return;
  }
  rmSync(to, { recursive: true, force: true });
  mkdirSync(dirname(to), { recursive: true });
  const stat = lstatSync(from);
  if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
  else if (stat.isDirectory()) mkdirSync(to, { recursive: true });
  else copyFileSync(from, to);
}

/**
 * The mode of a file written with writeFileSync under this umask: a candidate once extracted to disk
 * had it, and copyEntry's copyFile carried it to the scoring workspace. An in-memory candidate's
 * files get the same, so the staged workspace is the same mode for mode.
 */
const WRITTEN_FILE_MODE = 0o666 & ~process.umask();

/** An in-memory candidate file into the workspace, as copyEntry would copy its extracted copy (in place over a sole regular file). */
function writeEntry(content: Buffer, to: string): void {
  if (!isSoleRegularFile(to)) {
    rmSync(to, { recursive: true, force: true });
    mkdirSync(dirname(to), { recursive: true });
  }
  const fd = openSync(to, 'w', WRITTEN_FILE_MODE);
  try {
    fchmodSync(fd, WRITTEN_FILE_MODE); // open's mode applies only when it creates the file
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
}

/** The evaluator option of a task set's `testDeadlineSeconds` (checked: a positive number of seconds). */
export function testDeadline(seconds: number | undefined): { timeoutSeconds?: number } {
  if (seconds === undefined) return {};
  if (!Number.isFinite(seconds) || seconds <= 0) throw new UserError(`rollout tasks: the test deadline must be a positive number of seconds, got ${seconds}`);
  return { timeoutSeconds: seconds };
}

/**
 * The baseline's working tree (no `.git`) in `dir` with the candidate laid over it: deleted paths
 * removed, changed files copied; absolute or escaping paths refused, sandbench's own and bytecode
 * ignored. Every evaluator stages its scoring workspace this way (harbor-evaluator.ts too).
 */
export async function stageCandidateOverBaseline(baselineDir: string, dir: string, candidate: CandidateFiles, alongside: readonly string[] = []): Promise<void> {
  mkdirSync(dir, { recursive: true });
  // `alongside`: prepared entries copied in the same request, in place of the baseline's of the same name.
  const replaced = new Set(alongside.map((path) => basename(path)));
  const sources = [...readdirSync(baselineDir).filter((name) => name !== '.git' && !replaced.has(name)).map((name) => join(baselineDir, name)), ...alongside];
  // One `cp -a` through the run's launcher (not an in-process walk: its CPU would land in the harness).
  if (sources.length > 0) await runHelper(['cp', '-a', '-t', dir, '--', ...sources]);
  await loopTurns.take();
  for (const path of [...candidate.changed, ...candidate.deleted]) {
    const problem = candidatePathProblem(path);
    if (problem) throw new Error(`candidate path "${path}" ${problem}; refusing to stage it`);
  }
  // deletions first: a path the agent removed may now be a directory holding changed files
  for (const path of candidate.deleted) {
    if (!ignoredCandidatePath(path)) rmSync(join(dir, path), { recursive: true, force: true });
  }
  for (const path of candidate.changed) {
    if (ignoredCandidatePath(path)) continue;
    if ('contents' in candidate) writeEntry(candidate.contents.get(path)!, join(dir, path));
    else copyEntry(join(candidate.dir, path), join(dir, path));
  }
}

export class UnittestEvaluator implements TaskEvaluator {
  readonly version: string;
  readonly scoringArgv: readonly string[] = ['python3', '-I', '-B', `${SCORE_DIR}/score_runner.py`, `${SCORE_DIR}/tests.json`];
  private readonly runner: Buffer;
  private readonly tests: readonly TestRef[];
  /** sha256 of everything the version names (logic, runner, tests, deadline, test patch). */
  private readonly digest: string;

  constructor(private readonly config: UnittestEvaluatorConfig) {
    this.runner = readFileSync(SCORE_RUNNER_PATH);
    this.tests = [...config.failToPass, ...config.passToPass];
    const digest = createHash('sha256')
      .update(`logic ${EVALUATOR_LOGIC}\n`)
      .update(this.runner)
      .update(JSON.stringify({ f2p: config.failToPass, p2p: config.passToPass, timeout: this.timeoutSeconds }))
      .update(config.testPatch ?? '')
      .digest('hex');
    this.version = `${config.label}-unittest/1+${digest.slice(0, 16)}`;
    this.digest = digest;
  }

  private get timeoutSeconds(): number {
    return this.config.timeoutSeconds ?? DEFAULT_TEST_DEADLINE_S;
  }

  get deadlineMs(): number {
    return this.timeoutSeconds * 1000;
  }

  /** Every test the reward needs (FAIL_TO_PASS then PASS_TO_PASS), by task id. */
  get requiredTests(): readonly string[] {
    return this.tests.map((test) => test.id);
  }

  /**
   * The scoring workspace's runner dir (score_runner.py, tests.json) is the same for every attempt of
   * a task: it is written once, content-addressed by the version digest, and copied by the same
   * `cp -a` as the baseline. Written per attempt, its dir and two files cost ≈ 1 ms of harness CPU on
   * the fixture disk (three inode allocations; harness-steps, issue 33).
   */
  private scoreDirTemplate(): string {
    const root = join(stateDir(), 'rollout-score-dirs', this.digest);
    const template = join(root, SCORE_DIR);
    if (existsSync(template)) return template;
    // write-then-rename: a concurrent run never copies half a template
    const partial = `${root}.${process.pid}.${Math.random().toString(36).slice(2)}.partial`;
    mkdirSync(join(partial, SCORE_DIR), { recursive: true });
    writeFileSync(join(partial, SCORE_DIR, 'score_runner.py'), this.runner);
    writeFileSync(join(partial, SCORE_DIR, 'tests.json'), `${JSON.stringify({ tests: this.tests, timeout_s: this.timeoutSeconds }, null, 1)}\n`);
    try {
      renameSync(partial, root);
    } catch (error) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(template)) throw error;
    }
    return template;
  }

  async stageScoringWorkspace(dir: string, candidate: CandidateFiles): Promise<void> {
    await stageCandidateOverBaseline(this.config.baselineDir, dir, candidate, [this.scoreDirTemplate()]);
    if (this.config.testPatch) await this.applyTestPatch(dir, this.config.testPatch);
  }

  /** As SWE-bench's harness: the test files go back to the base commit, then the test patch applies. */
  private async applyTestPatch(dir: string, patch: string): Promise<void> {
    for (const path of patchedPaths(patch)) {
      const baseline = join(this.config.baselineDir, path);
      if (existsSync(baseline)) copyEntry(baseline, join(dir, path));
      else rmSync(join(dir, path), { recursive: true, force: true });
    }
    const result = await gitIn(dir, ['apply', '--whitespace=nowarn', '-'], { input: patch, reject: false });
    if (result.exitCode !== 0) throw new Error(`the test patch does not apply to the scoring workspace: ${result.stderr.trim().split('\n')[0]}`);
  }

  parseScore(outcome: { exitCode: number | null; stdout: string; stderr: string }): TaskScore {
    const fail = (why: string): TaskScore => {
      const tail = outcome.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 400);
      return { reward: 0, passed: [], failed: [], evaluatorError: `${why} (scoring exit ${outcome.exitCode ?? 'none'}${tail ? `; stderr: ${tail}` : ''})` };
    };
    const line = outcome.stdout
      .split('\n')
      .reverse()
      .find((entry) => entry.startsWith(SCORE_PREFIX));
    if (line === undefined) return fail('the scoring runner printed no SANDBENCH_SCORE line');
    let value: unknown;
    try {
      value = JSON.parse(line.slice(SCORE_PREFIX.length));
    } catch (error) {
      return fail(`the SANDBENCH_SCORE line is not JSON (${(error as Error).message})`);
    }
    const parsed = ScoreLine.safeParse(value);
    if (!parsed.success) return fail(`the SANDBENCH_SCORE line does not match ${SCORE_SCHEMA} (${parsed.error.issues[0]?.message ?? 'invalid'})`);
    const results = parsed.data.results;
    const unreported = this.tests.filter((test) => !(test.id in results)).map((test) => test.id);
    if (unreported.length > 0) return fail(`the scoring runner did not report ${unreported.length} required test(s): ${unreported.slice(0, 3).join(', ')}`);
    const passed = this.tests.filter((test) => results[test.id] === 'pass').map((test) => test.id);
    const failed = this.tests.filter((test) => results[test.id] !== 'pass').map((test) => test.id);
    const statuses = Object.fromEntries(this.tests.map((test) => [test.id, results[test.id]!]));
    return { reward: failed.length === 0 ? 1 : 0, passed, failed, statuses };
  }
}
