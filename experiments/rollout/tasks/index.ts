/**
 * Task sets for the rollout kind (the contract: ../task-contract.ts).
 *
 *   const set = await loadTaskSet('builtin' | 'swe-fixture' | '/path/instances.jsonl', {
 *     cacheDir,          // baselines (and fixture repositories) are prepared here, keyed by content digest, reused
 *     repos,             // SWE-bench JSONL only: repo name → local git repository, or a directory of
 *                        //   <owner>__<name> / <owner>/<name> repositories (default: <jsonl dir>/repos)
 *     log,
 *     testDeadlineSeconds, // the scoring runner stops the tests itself (default 45 s; evaluator.deadlineMs)
 *   });
 *
 * `builtin`: the generated tasks of data/rollout-tasks/builtin (builtin.ts). `swe-fixture`: the three
 * shipped SWE-bench-format instances (data/rollout-tasks/swe-fixture.jsonl) on repositories
 * generated from data/rollout-tasks/swe-fixture-repos. A `.jsonl` path: SWE-bench / SWE-Gym
 * instances on local repositories (swe-bench.ts), graded by a UnittestEvaluator (or swebench's rules).
 * `harbor:DIR` (a spec's `{source: harbor, path: DIR}`): Harbor task directories (harbor.ts), each
 * graded by its own tests/test.sh.
 */
import { existsSync } from 'node:fs';
import { UserError } from '../../../harness/errors.ts';
import type { TaskSet } from '../task-contract.ts';
import type { GraderChoice } from './swebench-evaluator.ts';
import { loadBuiltinTaskSet } from './builtin.ts';
import { loadSweTaskSet, SWE_FIXTURE_JSONL, type RepoSource } from './swe-bench.ts';
import { loadHarborTaskSet } from './harbor.ts';
import { harborTasksPath } from './harbor-ref.ts';

export { loadBuiltinTaskSet, readBuiltinTasks, BUILTIN_SCRIPT, BUILTIN_TASKS_DIR } from './builtin.ts';
export { loadSweTaskSet, SWE_FIXTURE_JSONL, type RepoSource } from './swe-bench.ts';
export { parseSweInstances, readSweInstances, type SweInstance } from './swe-instances.ts';
export { UnittestEvaluator, SCORE_DIR } from './unittest-evaluator.ts';
export { diffCandidate } from './candidate-diff.ts';

export const TASK_SET_NAMES = ['builtin', 'swe-fixture'] as const;

export interface LoadTaskSetOptions {
  readonly cacheDir: string;
  readonly repos?: RepoSource;
  readonly log?: (line: string) => void;
  /** The scoring runner's own deadline on the tests (evaluator.deadlineMs, default 45 s): keep it under the scoring sandbox's timeout. */
  readonly testDeadlineSeconds?: number;
  /** Who grades: `unittest` (default), `swebench` (swebench 5.0.2's rules), `both` (swebench's reward, unittest's beside it). */
  readonly grader?: GraderChoice;
  /** Harbor tasks only: the run's task image's Debian packages (a task's `RUN apt-get install` must be among them). */
  readonly imagePackages?: readonly string[];
}

export async function loadTaskSet(ref: string, opts: LoadTaskSetOptions): Promise<TaskSet> {
  if (ref === 'builtin') return loadBuiltinTaskSet(opts);
  if (ref === 'swe-fixture') return loadSweTaskSet(SWE_FIXTURE_JSONL, opts);
  const harbor = harborTasksPath(ref);
  if (harbor !== null) return loadHarborTaskSet(harbor, opts);
  if (ref.endsWith('.jsonl')) {
    if (!existsSync(ref)) throw new UserError(`rollout.tasks: ${ref} does not exist (give a SWE-bench-format .jsonl file, or one of ${TASK_SET_NAMES.join(', ')})`);
    return loadSweTaskSet(ref, opts);
  }
  throw new UserError(`rollout.tasks: unknown task set "${ref}"; expected ${TASK_SET_NAMES.join(' or ')}, or the path of a SWE-bench-format .jsonl file (Harbor task directories: {source: harbor, path: DIR})`);
}
