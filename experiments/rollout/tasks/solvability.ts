/**
 * Tasks proved solvable before they count (issue 30, item 4). A broken task (a FAIL_TO_PASS test
 * that does not exist, a gold patch that breaks a PASS_TO_PASS test, a "failing" test that already
 * passes) scores 0 on every attempt and looks like a weak policy; so before any attempt scores, each
 * task's baseline and its gold solution are scored by the task's own evaluator:
 *
 *   - the gold solution makes every FAIL_TO_PASS test pass and keeps every PASS_TO_PASS test passing;
 *   - the baseline fails every FAIL_TO_PASS test.
 *
 * A task failing either is invalid, with one reason per offending test. The verdict is cached per
 * task under the caller's cache directory, keyed by a digest of everything it depends on (task,
 * base commit, evaluator version, gold solution, the caller's scoring environment), so a task set is
 * checked once. An evaluator that cannot judge is an infrastructure failure: the check throws, it
 * never calls a task invalid because the substrate failed.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import type { CandidateFiles, RolloutTask, TaskScore } from '../task-contract.ts';
import { diffCandidate } from './candidate-diff.ts';
import { gitIn } from './git.ts';

/** Bumped whenever what the check decides changes (part of every cache key). */
const CHECK_VERSION = 1;
export const SOLVABILITY_SCHEMA = 'sandbench-solvability/1';

export const SolvabilityVerdictSchema = z.object({
  schema: z.literal(SOLVABILITY_SCHEMA),
  task_id: z.string(),
  valid: z.boolean(),
  /** One sentence per offending test; empty when valid. */
  reasons: z.array(z.string()),
  /** Required tests' statuses on the baseline and with the gold solution. */
  base: z.record(z.string(), z.string()),
  gold: z.record(z.string(), z.string()),
  evaluator_version: z.string(),
  key: z.string(),
  /** Host wall time of the two scores when the verdict was made (not when reused). */
  checked_ms: z.number(),
});
export type SolvabilityVerdict = z.infer<typeof SolvabilityVerdictSchema>;

/** Which candidate a score is of. */
export type ProbeLabel = 'base' | 'gold';

/**
 * Scores one candidate of `task` with its evaluator wherever the caller scores (the rollout kind:
 * a fresh sandbox on the scoring backend). Throws when the score could not be made or judged.
 */
export type ScoreProbe = (task: RolloutTask, candidate: CandidateFiles, scratchDir: string, label: ProbeLabel) => Promise<TaskScore>;

export interface SolvabilityOptions {
  /** Verdicts are cached at <cacheDir>/solvability/<task>-<key>.json. */
  readonly cacheDir: string;
  /** What else the verdict depends on (the scoring backend and its image); part of the key. */
  readonly environmentKey: string;
  readonly score: ScoreProbe;
  readonly log?: (line: string) => void;
}

const TOOL_ENV = { PYTHONDONTWRITEBYTECODE: '1', GIT_OPTIONAL_LOCKS: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

/**
 * The gold candidate: the baseline copied to `scratch/work`, the gold solution applied, the
 * difference taken into `scratch/gold`. A patch is applied with git (no task code runs on the
 * host); shell commands are only those of scripts shipped with sandbench (the built-in tasks).
 */
export async function goldCandidate(task: RolloutTask, scratch: string): Promise<CandidateFiles> {
  const work = join(scratch, 'work');
  cpSync(task.repoDir, work, { recursive: true });
  if (task.gold.kind === 'patch') {
    const applied = await gitIn(work, ['apply', '--whitespace=nowarn', '-'], { input: task.gold.patch, reject: false });
    if (applied.exitCode !== 0) throw new Error(`task ${task.id}: the gold patch does not apply to its baseline: ${applied.stderr.trim().split('\n')[0]}`);
  } else {
    for (const command of task.gold.commands) await execa('bash', ['-c', command], { cwd: work, env: TOOL_ENV, reject: false });
  }
  const out = join(scratch, 'gold');
  mkdirSync(out, { recursive: true });
  return diffCandidate(task.repoDir, work, out);
}

/** The baseline as a candidate: nothing changed. */
export function baselineCandidate(scratch: string): CandidateFiles {
  const dir = join(scratch, 'base');
  mkdirSync(dir, { recursive: true });
  return { dir, changed: [], deleted: [] };
}

const statusOf = (score: TaskScore, test: string): string => score.statuses?.[test] ?? (score.passed.includes(test) ? 'pass' : 'fail');
type Statuses = Readonly<Record<string, string>>;

/** A status as a reader acts on it: a test that does not exist is missing or (unittest) an import error. */
function describe(status: string): string {
  if (status === 'missing') return 'missing (no such test: check its id)';
  if (status === 'error') return 'an error (it raised, or could not be loaded: check its id)';
  return status;
}

/** Why the task is not solvable as written (empty when it is), from its required tests' statuses. */
export function solvabilityProblems(task: RolloutTask, base: Statuses, gold: Statuses): string[] {
  const reasons: string[] = [];
  const at = (statuses: Statuses, test: string) => statuses[test] ?? 'missing';
  for (const test of task.tests.failToPass) {
    const status = at(gold, test);
    if (status !== 'pass') reasons.push(`FAIL_TO_PASS test "${test}" is ${describe(status)} with the gold solution`);
  }
  for (const test of task.tests.passToPass) {
    const status = at(gold, test);
    if (status !== 'pass') reasons.push(`PASS_TO_PASS test "${test}" is ${describe(status)} with the gold solution (the gold solution breaks it, or it never passed)`);
  }
  for (const test of task.tests.failToPass) {
    if (at(base, test) === 'pass') reasons.push(`FAIL_TO_PASS test "${test}" already passes on the base commit (it does not test the fix)`);
  }
  return reasons;
}

function verdictKey(task: RolloutTask, environmentKey: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ check: CHECK_VERSION, id: task.id, base: task.baseCommit, evaluator: task.evaluator.version, tests: task.tests, gold: task.gold, environment: environmentKey }))
    .digest('hex')
    .slice(0, 16);
}

function readCached(file: string): SolvabilityVerdict | null {
  if (!existsSync(file)) return null;
  const parsed = SolvabilityVerdictSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : null; // an unreadable entry is re-checked, never trusted
}

function scoreProblem(label: ProbeLabel, score: TaskScore): string | null {
  return score.evaluatorError ? `the ${label === 'gold' ? 'gold solution' : 'baseline'} could not be judged: ${score.evaluatorError}` : null;
}

/** Check one task (or reuse its cached verdict). */
export async function checkTask(task: RolloutTask, opts: SolvabilityOptions): Promise<SolvabilityVerdict & { reused: boolean }> {
  const key = verdictKey(task, opts.environmentKey);
  const dir = join(opts.cacheDir, 'solvability');
  const file = join(dir, `${task.id}-${key}.json`);
  const cached = readCached(file);
  // the statuses are what is cached; the reasons are re-derived so their wording follows this code
  if (cached) {
    const reasons = solvabilityProblems(task, cached.base, cached.gold);
    return { ...cached, valid: reasons.length === 0, reasons, reused: true };
  }
  mkdirSync(dir, { recursive: true });
  const scratch = mkdtempSync(join(dir, `.${task.id}-`));
  try {
    const started = process.hrtime.bigint();
    const base = await opts.score(task, baselineCandidate(scratch), join(scratch, 'score-base'), 'base');
    const gold = await opts.score(task, await goldCandidate(task, scratch), join(scratch, 'score-gold'), 'gold');
    const broken = scoreProblem('base', base) ?? scoreProblem('gold', gold);
    if (broken) throw new Error(`solvability check of task ${task.id}: ${broken}`);
    const required = [...task.tests.failToPass, ...task.tests.passToPass];
    const statuses = { base: Object.fromEntries(required.map((test) => [test, statusOf(base, test)])), gold: Object.fromEntries(required.map((test) => [test, statusOf(gold, test)])) };
    const reasons = solvabilityProblems(task, statuses.base, statuses.gold);
    const verdict: SolvabilityVerdict = {
      schema: SOLVABILITY_SCHEMA,
      task_id: task.id,
      valid: reasons.length === 0,
      reasons,
      ...statuses,
      evaluator_version: task.evaluator.version,
      key,
      checked_ms: Number(process.hrtime.bigint() - started) / 1e6,
    };
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(verdict, null, 1)}\n`);
    renameSync(tmp, file);
    return { ...verdict, reused: false };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Check every task of a set, in order; one log line for the set. */
export async function checkTasks(tasks: readonly RolloutTask[], opts: SolvabilityOptions): Promise<SolvabilityVerdict[]> {
  const verdicts: (SolvabilityVerdict & { reused: boolean })[] = [];
  for (const task of tasks) verdicts.push(await checkTask(task, opts));
  const reused = verdicts.filter((verdict) => verdict.reused).length;
  const invalid = verdicts.filter((verdict) => !verdict.valid);
  opts.log?.(
    `rollout tasks: solvability: ${verdicts.length - invalid.length} of ${verdicts.length} task(s) proved solvable (${reused} verdict(s) reused from ${join(opts.cacheDir, 'solvability')})${invalid.length ? `; invalid: ${invalid.map((verdict) => verdict.task_id).join(', ')}` : ''}`,
  );
  return verdicts.map(({ reused: _reused, ...verdict }) => verdict);
}
