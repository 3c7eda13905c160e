/**
 * Grading by swebench 5.0.2's own rules (issue 34, `rollout.grader: swebench | both`). The scoring
 * workspace is staged as for the unittest evaluator (baseline + candidate + test patch); the
 * scoring sandbox runs the instance's eval script (the row's own `eval_script` + `log_parser`, or,
 * for sandbench's unittest-id rows, one generated here: `python3 -m unittest -v` over the required
 * tests, graded by `parse_log_django`), and its log is graded on the host by swebench's
 * `make_test_spec` + `get_eval_report` in a grader process (swebench_grade.py, in the venv
 * scripts/build-swebench-grader-venv.sh builds). Reward 1 iff swebench says resolved (FULL).
 *
 * `both` also runs sandbench's stdlib runner after the eval script in the same sandbox, so every
 * score carries the unittest grader's reward too and the two can be compared row by row; the
 * reward is still swebench's. A log without swebench's start marker (the script never ran) or one
 * swebench flags as an environment failure is an evaluator error (infrastructure), never reward 0.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import type { CandidateFiles, TaskEvaluator, TaskScore } from '../task-contract.ts';
import type { TestRef } from './test-ids.ts';
import { SCORE_DIR, SCORE_PREFIX, type UnittestEvaluator } from './unittest-evaluator.ts';

export const SWEBENCH_GRADE_SCRIPT = join(PROJECT_ROOT, 'experiments', 'rollout', 'tasks', 'swebench_grade.py');
export const SWEBENCH_VERSION = '5.0.2';
/** The parser that reads Python ≥ 3.11 `unittest -v` lines (`name (module.Class.name) ... ok`). */
export const UNITTEST_LOG_PARSER = 'parse_log_django';
const START_MARKER = '>>>>> Start Test Output';
/** Bumped whenever the generated eval script or the grading glue changes. */
const GLUE_VERSION = 1;

export type GraderChoice = 'unittest' | 'swebench' | 'both';
export const GRADERS: readonly GraderChoice[] = ['unittest', 'swebench', 'both'];

/** What swebench grades: the row's own script and parser, or the generated unittest one. */
export interface SweBenchGrading {
  readonly instanceId: string;
  readonly repo: string;
  readonly version: string;
  readonly failToPass: readonly TestRef[];
  readonly passToPass: readonly TestRef[];
  /** The row's eval_script and log_parser (SWE-bench 5 rows); null → generated for unittest ids. */
  readonly rowScript: { readonly evalScript: string; readonly logParser: string; readonly evalType: string } | null;
  /** The test run's own deadline inside the eval script (seconds). */
  readonly timeoutSeconds: number;
}

export interface GraderProcess {
  /** The venv's python (swebench 5.0.2 + unidiff). */
  readonly python: string;
}

const Grade = z.object({
  schema: z.literal('sandbench-swebench-grade/1'),
  swebench_version: z.string(),
  parser: z.string(),
  resolved: z.boolean(),
  resolution: z.string(),
  found: z.boolean(),
  tests_status: z.record(z.string(), z.object({ success: z.array(z.string()), failure: z.array(z.string()) })).nullable(),
  infra_failure: z.boolean(),
  infra_failure_reason: z.string().nullable(),
  grade_ms: z.number(),
});

/** Python ≥ 3.11 `unittest -v` names a test `method (module.Class.method)`: the key parse_log_django reads. */
export function unittestLogKey(target: string): string {
  return `${target.slice(target.lastIndexOf('.') + 1)} (${target})`;
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** SWE-bench's eval-script shape for stdlib unittest: markers around one verbose run of the required tests. */
export function generatedEvalScript(tests: readonly TestRef[], timeoutSeconds: number): string {
  const targets = [...new Set(tests.map((test) => test.target))].map(shellQuote).join(' ');
  return ['#!/bin/bash', 'set -uxo pipefail', `: '${START_MARKER}'`, `timeout -k 5 ${timeoutSeconds} python3 -B -m unittest -v ${targets}`, ": '>>>>> End Test Output'", ''].join('\n');
}

/** Resolution as SWE-bench names it (grading.py ResolvedStatus) → FULL / PARTIAL / NO. */
function resolutionOf(value: string): 'FULL' | 'PARTIAL' | 'NO' {
  if (value === 'RESOLVED_FULL') return 'FULL';
  if (value === 'RESOLVED_PARTIAL') return 'PARTIAL';
  return 'NO';
}

export class SweBenchEvaluator implements TaskEvaluator {
  readonly version: string;
  readonly scoringArgv: readonly string[];
  private evalScript: Promise<string> | null = null;
  /** Row test id ↔ the key swebench's parser reads for it. */
  private readonly keys: Map<string, string>;

  constructor(
    private readonly grading: SweBenchGrading,
    /** Stages the workspace (and, for `both`, grades the runner's line): the task's unittest evaluator. */
    private readonly unittest: UnittestEvaluator,
    private readonly grader: GraderProcess,
    private readonly mode: 'swebench' | 'both',
  ) {
    const row = grading.rowScript;
    this.keys = new Map([...grading.failToPass, ...grading.passToPass].map((test) => [test.id, row ? test.id : unittestLogKey(test.target)]));
    const digest = createHash('sha256')
      .update(`glue ${GLUE_VERSION} swebench ${SWEBENCH_VERSION} mode ${mode}\n`)
      .update(readFileSync(SWEBENCH_GRADE_SCRIPT))
      .update(JSON.stringify({ grading }))
      .update(unittest.version)
      .digest('hex');
    this.version = `swebench-${SWEBENCH_VERSION}/${row ? row.logParser : UNITTEST_LOG_PARSER}+${digest.slice(0, 16)}`;
    const evalRun = `bash ${SCORE_DIR}/eval.sh 2>&1`;
    // `both`: the runner prints its one SANDBENCH_SCORE line on stdout after the eval log (its test output goes to stderr)
    this.scoringArgv = mode === 'both' ? ['bash', '-c', `${evalRun}; ${unittest.scoringArgv.join(' ')}`] : ['bash', '-c', evalRun];
  }

  get deadlineMs(): number {
    return this.unittest.deadlineMs * (this.mode === 'both' ? 2 : 1);
  }

  /** The instance as make_test_spec wants it (SWE-bench 5 fields), with parser keys for test ids. */
  private instance(): Record<string, unknown> {
    const row = this.grading.rowScript;
    return {
      instance_id: this.grading.instanceId,
      repo: this.grading.repo,
      version: this.grading.version,
      image: 'sandbench-scoring-sandbox',
      log_parser: row?.logParser ?? UNITTEST_LOG_PARSER,
      eval_type: row?.evalType ?? 'pass_and_fail',
      eval_script: row?.evalScript ?? generatedEvalScript([...this.grading.failToPass, ...this.grading.passToPass], this.grading.timeoutSeconds),
      FAIL_TO_PASS: this.grading.failToPass.map((test) => this.keys.get(test.id)!),
      PASS_TO_PASS: this.grading.passToPass.map((test) => this.keys.get(test.id)!),
    };
  }

  private async runGrader(mode: 'script' | 'grade', request: unknown): Promise<string> {
    const run = await execa(this.grader.python, ['-I', '-B', SWEBENCH_GRADE_SCRIPT, mode], { input: JSON.stringify(request), reject: false, timeout: 60_000 });
    if (run.exitCode !== 0) throw new Error(`swebench grader (${mode}) exited ${run.exitCode ?? run.signal}: ${String(run.stderr).trim().split('\n').slice(-2).join(' | ')}`);
    return String(run.stdout);
  }

  async stageScoringWorkspace(dir: string, candidate: CandidateFiles): Promise<void> {
    await this.unittest.stageScoringWorkspace(dir, candidate);
    // make_test_spec's own script (exit-code line inserted), built once per task
    this.evalScript ??= this.runGrader('script', this.instance());
    writeFileSync(join(dir, SCORE_DIR, 'eval.sh'), await this.evalScript);
  }

  async parseScore(outcome: { exitCode: number | null; stdout: string; stderr: string }): Promise<TaskScore> {
    const fail = (why: string): TaskScore => ({ reward: 0, passed: [], failed: [], evaluatorError: `${why} (scoring exit ${outcome.exitCode ?? 'none'})` });
    const lines = outcome.stdout.split('\n');
    const log = lines.filter((line) => !line.startsWith(SCORE_PREFIX)).join('\n');
    if (!log.includes(START_MARKER)) return fail(`the eval script's log has no "${START_MARKER}" marker (the script did not run)`);
    let grade: z.infer<typeof Grade>;
    try {
      const parsed = Grade.safeParse(JSON.parse((await this.runGrader('grade', { instance: this.instance(), model_patch: 'candidate', log })).trim().split('\n').at(-1)!));
      if (!parsed.success) return fail(`the swebench grader's line does not match its schema (${parsed.error.issues[0]?.message})`);
      grade = parsed.data;
    } catch (error) {
      return fail((error as Error).message);
    }
    if (grade.infra_failure) return fail(`swebench classified the log as an environment failure: ${grade.infra_failure_reason ?? 'no reason given'}`);
    const status = grade.tests_status;
    const passedKeys = new Set([...(status?.FAIL_TO_PASS?.success ?? []), ...(status?.PASS_TO_PASS?.success ?? [])]);
    const ids = [...this.keys.keys()];
    const statuses = Object.fromEntries(ids.map((id) => [id, passedKeys.has(this.keys.get(id)!) ? 'pass' : 'fail']));
    const unittest = this.mode === 'both' ? this.unittest.parseScore(outcome) : null;
    return {
      reward: grade.resolved ? 1 : 0,
      passed: ids.filter((id) => statuses[id] === 'pass'),
      failed: ids.filter((id) => statuses[id] !== 'pass'),
      statuses,
      grade: {
        grader: `swebench ${grade.swebench_version}`,
        parser: grade.parser,
        resolution: resolutionOf(grade.resolution),
        parsed: grade.found,
        grade_ms: grade.grade_ms,
        ...(unittest ? { unittest_reward: unittest.evaluatorError ? null : unittest.reward, unittest_error: unittest.evaluatorError ?? null } : {}),
      },
    };
  }
}

/** The task's evaluator for the chosen grader: its unittest evaluator, or swebench's rules over the same staging. */
export function evaluatorFor(choice: GraderChoice, unittest: UnittestEvaluator, grading: SweBenchGrading, grader: GraderProcess | null): TaskEvaluator {
  if (choice === 'unittest') return unittest;
  if (!grader) throw new Error(`grader ${choice}: no swebench grader venv was prepared (ensureSwebenchGrader)`);
  return new SweBenchEvaluator(grading, unittest, grader, choice);
}
