/**
 * The built-in task set: small Python repositories with a bug, failing tests and passing tests
 * (data/rollout-tasks/builtin/<task>/{repo/, task.yaml}), committed as deterministic one-commit
 * repositories (same files → same commit id, like the repair fixture) under the caller's cache
 * directory. The scripted agent paths are data/model-scripts/rollout-builtin.yaml: `<task>` fixes
 * the bug, `<task>.wrong` makes a plausible fix that breaks another test.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../../../harness/errors.ts';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { loadModelScript, type ModelScript } from '../../../services/model/index.ts';
import { commitDeterministicRepo } from '../../repair/deterministic-repo.ts';
import type { AttemptPath, RolloutTask, TaskSet } from '../task-contract.ts';
import { cachedEntry } from './baseline-cache.ts';
import { unittestTarget, TEST_ID_FORMS, type TestRef } from './test-ids.ts';
import { treeDigest } from './tree-digest.ts';
import { evaluatorFor, type GraderChoice } from './swebench-evaluator.ts';
import { ensureSwebenchGrader } from './swebench-venv.ts';
import { DEFAULT_TEST_DEADLINE_S, testDeadline as deadline, UnittestEvaluator } from './unittest-evaluator.ts';

export const BUILTIN_TASKS_DIR = join(PROJECT_ROOT, 'data', 'rollout-tasks', 'builtin');
export const BUILTIN_SCRIPT = join(PROJECT_ROOT, 'data', 'model-scripts', 'rollout-builtin.yaml');
/** Commit date of every built-in baseline (2025-12-01T00:00:00Z): part of the commit id. */
export const BUILTIN_EPOCH = 1764547200;
/** Bumped when the way baselines are built changes (part of the cache key). */
const GENERATOR_VERSION = 1;
const TASK_ID = /^[a-z0-9][a-z0-9-]*$/;

const TaskYaml = z
  .object({
    prompt: z.string().min(1),
    /** Documentation: how big the right fix is (one line … several files, a large generated file). */
    fix_size: z.string().min(1),
    fail_to_pass: z.array(z.string().min(1)).min(1),
    pass_to_pass: z.array(z.string().min(1)).min(1),
  })
  .strict();

export interface BuiltinTaskDef {
  readonly id: string;
  readonly prompt: string;
  readonly fixSize: string;
  readonly failToPass: readonly TestRef[];
  readonly passToPass: readonly TestRef[];
  readonly sourceDir: string;
}

function refs(ids: readonly string[], where: string): TestRef[] {
  return ids.map((id, index) => {
    const target = unittestTarget(id);
    if (!target) throw new UserError(`${where}[${index}]: test id "${id}" is not ${TEST_ID_FORMS}`);
    return { id, target };
  });
}

/** Read every task definition (sorted by id); errors name the file and field. */
export function readBuiltinTasks(root: string = BUILTIN_TASKS_DIR): BuiltinTaskDef[] {
  if (!existsSync(root)) throw new UserError(`built-in rollout tasks: ${root} is missing (it ships with sandbench)`);
  const ids = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return ids.map((id) => {
    const file = join(root, id, 'task.yaml');
    if (!TASK_ID.test(id)) throw new UserError(`${join(root, id)}: a built-in task directory name is its id: lower-case letters, digits and "-"`);
    if (!existsSync(join(root, id, 'repo'))) throw new UserError(`${join(root, id)}: no repo/ directory (the task's baseline files)`);
    let value: unknown;
    try {
      value = parseYaml(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new UserError(`${file}: ${(error as Error).message.split('\n')[0]}`);
    }
    const parsed = TaskYaml.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new UserError(`${file}: field ${issue.path.join('.') || '(top level)'}: ${issue.message} (a task.yaml has prompt, fix_size, fail_to_pass and pass_to_pass)`);
    }
    return {
      id,
      prompt: parsed.data.prompt,
      fixSize: parsed.data.fix_size,
      failToPass: refs(parsed.data.fail_to_pass, `${file}: field fail_to_pass`),
      passToPass: refs(parsed.data.pass_to_pass, `${file}: field pass_to_pass`),
      sourceDir: join(root, id, 'repo'),
    };
  });
}

/** The script task id of a built-in task's path. */
export function builtinScriptTask(id: string, path: AttemptPath): string {
  return path === 'right' ? id : `${id}.wrong`;
}

/** The shell commands of a script task's turns, in order: the right path is the built-in task's gold solution. */
function shellCommands(script: ModelScript, taskId: string): string[] {
  const task = script.tasks.find((entry) => entry.id === taskId);
  if (!task) throw new Error(`script ${script.id} has no task ${taskId}`);
  return task.turns.flatMap((turn) => ('shell' in turn ? [turn.shell] : []));
}

export interface LoadOptions {
  readonly cacheDir: string;
  readonly log?: (line: string) => void;
  /** The scoring runner's own deadline on the tests (evaluator.deadlineMs); default 45 s. */
  readonly testDeadlineSeconds?: number;
  /** Who grades (default: sandbench's stdlib unittest runner); see SweBenchEvaluator. */
  readonly grader?: GraderChoice;
  /** Overrides for tests: another task directory or script. */
  readonly tasksDir?: string;
  readonly scriptPath?: string;
}

export async function loadBuiltinTaskSet(opts: LoadOptions): Promise<TaskSet> {
  const root = opts.tasksDir ?? BUILTIN_TASKS_DIR;
  const scriptPath = opts.scriptPath ?? BUILTIN_SCRIPT;
  const defs = readBuiltinTasks(root);
  const script = loadModelScript(scriptPath);
  const scripted = new Set(script.tasks.map((task) => task.id));
  for (const def of defs) {
    for (const path of ['right', 'wrong'] as const) {
      if (!scripted.has(builtinScriptTask(def.id, path))) throw new UserError(`${scriptPath}: no script task "${builtinScriptTask(def.id, path)}" for built-in task ${def.id} (its ${path} path)`);
    }
  }
  const hash = createHash('sha256').update(`builtin generator ${GENERATOR_VERSION} epoch ${BUILTIN_EPOCH}\n`);
  const digest = treeDigest(root, hash).digest('hex').slice(0, 16);
  const entry = await cachedEntry<{ commits: Record<string, string> }>(opts.cacheDir, `builtin-${digest}`, async (dir) => {
    const commits: Record<string, string> = {};
    for (const def of defs) {
      const repo = join(dir, def.id);
      cpSync(def.sourceDir, repo, { recursive: true });
      commits[def.id] = await commitDeterministicRepo(repo, `${def.id}: baseline`, BUILTIN_EPOCH);
    }
    return { commits };
  });
  opts.log?.(`rollout tasks: builtin (${defs.length} tasks) ${entry.built ? 'prepared' : 'reused'} at ${entry.dir}`);
  const grader = (opts.grader ?? 'unittest') === 'unittest' ? null : await ensureSwebenchGrader(opts.log);
  const tasks: RolloutTask[] = defs.map((def) => {
    const repoDir = join(entry.dir, def.id);
    const baseCommit = entry.meta.commits[def.id];
    if (!baseCommit) throw new Error(`built-in task cache ${entry.dir} has no commit for ${def.id}; delete the directory to rebuild it`);
    return {
      id: def.id,
      source: 'builtin',
      repoDir,
      baseCommit,
      prompt: def.prompt,
      scriptPath,
      scriptTaskId: (path: AttemptPath) => builtinScriptTask(def.id, path),
      evaluator: evaluatorFor(
        opts.grader ?? 'unittest',
        new UnittestEvaluator({ label: 'builtin', baselineDir: repoDir, failToPass: def.failToPass, passToPass: def.passToPass, ...deadline(opts.testDeadlineSeconds) }),
        { instanceId: def.id, repo: `sandbench-builtin/${def.id}`, version: String(GENERATOR_VERSION), failToPass: def.failToPass, passToPass: def.passToPass, rowScript: null, timeoutSeconds: opts.testDeadlineSeconds ?? DEFAULT_TEST_DEADLINE_S },
        grader,
      ),
      tests: { failToPass: def.failToPass.map((test) => test.id), passToPass: def.passToPass.map((test) => test.id) },
      gold: { kind: 'shell', commands: shellCommands(script, builtinScriptTask(def.id, 'right')) },
    };
  });
  return { id: 'builtin', tasks };
}
