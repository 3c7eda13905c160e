/**
 * Harbor task directories as a rollout task set (`rollout.tasks: {source: harbor, path: DIR}`):
 * DIR is one task directory (it holds task.toml) or a directory of them. Per task (harbor-task.ts
 * reads and checks it):
 *
 *   baseline   the Dockerfile's COPY lines and prepare steps (pip --require-hashes, git clone of a
 *              bundle, gcc; run once on the host) into WORKDIR, committed as a deterministic one-commit
 *              repository under the cache (same files → same commit id)
 *   prompt     instruction.md
 *   image      the Dockerfile's `RUN apt-get install` packages must be in the run's task image:
 *              a missing one stops the load naming the Dockerfile and the spec field to add it to
 *   evaluator  tests/test.sh in the fresh scoring sandbox (harbor-evaluator.ts)
 *   oracle     solution/solve.sh: the right path's one shell turn (and the solvability pre-pass's
 *              gold commands); the wrong path looks and changes nothing (the baseline, reward 0)
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, normalize, relative, resolve, sep } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { UserError } from '../../../harness/errors.ts';
import { MODEL_SCRIPT_SCHEMA, parseModelScript, type ModelScriptInput } from '../../../services/model/index.ts';
import { commitDeterministicRepo } from '../../repair/deterministic-repo.ts';
import type { AttemptPath, RolloutTask, TaskSet } from '../task-contract.ts';
import { cachedEntry } from './baseline-cache.ts';
import { HARBOR_VERIFIER_TEST, HarborEvaluator } from './harbor-evaluator.ts';
import type { DockerfileCopy } from './harbor-dockerfile.ts';
import { HARBOR_ORACLE_DIR, harborMappings, rewritePathsCommand } from './harbor-paths.ts';
import { runPrepareStep, type PrepareTiming } from './harbor-prepare.ts';
import { readHarborTaskDir, type HarborTaskDir } from './harbor-task.ts';

/** Bumped when baselines or the generated script change shape (part of the cache key). */
const LOADER_VERSION = 2;
/** Commit date of every Harbor baseline (2025-12-01T00:00:00Z): part of the commit id. */
const HARBOR_EPOCH = 1764547200;

export interface HarborLoadOptions {
  readonly cacheDir: string;
  /** The run's task image's Debian packages: every package a task's Dockerfile installs must be here. */
  readonly imagePackages?: readonly string[];
  readonly log?: (line: string) => void;
}

/** The task directories DIR names: itself when it holds task.toml, else its subdirectories that do. */
export function harborTaskDirs(path: string): string[] {
  const dir = resolve(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UserError(`rollout.tasks.path: ${path} is not a directory; give a Harbor task directory or a directory of them`);
  if (existsSync(join(dir, 'task.toml'))) return [dir];
  const children = readdirSync(dir)
    .sort()
    .map((name) => join(dir, name))
    .filter((child) => statSync(child).isDirectory());
  const tasks = children.filter((child) => existsSync(join(child, 'task.toml')));
  // A subdirectory with a task's other files but no task.toml is a broken task, not something to skip silently.
  for (const child of children) {
    if (!tasks.includes(child) && ['instruction.md', 'tests', 'solution'].some((name) => existsSync(join(child, name)))) {
      throw new UserError(`Harbor task ${child}: task.toml is missing; every Harbor task needs one (\`harbor init --task <dir>\` writes a template)`);
    }
  }
  if (tasks.length === 0) throw new UserError(`rollout.tasks.path: ${path} holds no Harbor task (no task.toml in it or in its subdirectories)`);
  return tasks;
}

function taskId(task: HarborTaskDir): string {
  return basename(task.dir).replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** One COPY line laid into `out`; refuses sources outside environment/ and destinations outside WORKDIR. */
function layCopy(task: HarborTaskDir, copy: DockerfileCopy, out: string): void {
  const context = join(task.dir, 'environment');
  const at = `${join(context, 'Dockerfile')}:${copy.line}`;
  const dest = copy.dest.startsWith('/') ? copy.dest : `${copy.workdir ?? '/'}/${copy.dest}`;
  const inside = relative(task.workdir, normalize(dest));
  if (inside.startsWith('..') || inside.startsWith(sep)) {
    throw new UserError(`${at}: COPY to ${copy.dest} lands outside the task's working directory ${task.workdir}; sandbench's workspace is that directory only, so copy into it`);
  }
  for (const source of copy.sources) {
    const from = resolve(context, source);
    if (relative(context, from).startsWith('..')) throw new UserError(`${at}: COPY source ${source} is outside environment/ (the build context); move it into environment/`);
    if (!existsSync(from)) throw new UserError(`${at}: COPY source ${source} does not exist in ${context}; add it or fix the line`);
    const target = join(out, inside);
    const isDir = statSync(from).isDirectory();
    // Docker: a directory source copies its contents; a file into a `dir/` destination keeps its name.
    const to = isDir ? target : copy.dest.endsWith('/') || copy.sources.length > 1 ? join(target, basename(from)) : target;
    mkdirSync(isDir ? to : join(to, '..'), { recursive: true });
    cpSync(from, to, { recursive: true });
  }
}

/**
 * Builds the task's baseline workspace in `out` (= WORKDIR): the Dockerfile's COPY lines and its
 * prepare steps (pip, git clone, gcc: harbor-prepare.ts) in line order, as `docker build` would.
 * Returns each prepare command's wall time. The Harbor provider's bridge builds its sandbox's
 * workspace with it too (integrations/harbor/bridge.ts).
 */
export function harborBaseline(task: HarborTaskDir, out: string): PrepareTiming[] {
  mkdirSync(out, { recursive: true });
  const dockerfile = join(task.dir, 'environment', 'Dockerfile');
  const steps = [...task.dockerfile.copies.map((copy) => ({ line: copy.line, copy })), ...task.dockerfile.runs.map((run) => ({ line: run.line, run }))].sort((a, b) => a.line - b.line);
  const timings: PrepareTiming[] = [];
  for (const step of steps) {
    if ('copy' in step) layCopy(task, step.copy, out);
    else timings.push(...runPrepareStep(step.run, task.workdir, out, `${dockerfile}:${step.line}`));
  }
  return timings;
}

function checkPackages(task: HarborTaskDir, imagePackages: readonly string[] | undefined): void {
  if (!imagePackages) return;
  const missing = task.dockerfile.packages.filter((name) => !imagePackages.includes(name));
  if (missing.length > 0) {
    throw new UserError(
      `${join(task.dir, 'environment', 'Dockerfile')}: RUN apt-get install asks for ${missing.join(', ')}, which the run's task image does not hold; add ${missing.length > 1 ? 'them' : 'it'} to the spec's image.packages (the one image every backend runs is built from that Debian package list)`,
    );
  }
}

/** A here-document tag that no line of `text` equals. */
function hereDocTag(text: string): string {
  let tag = 'SANDBENCH_SOLVE';
  for (let n = 1; text.split('\n').includes(tag); n += 1) tag = `SANDBENCH_SOLVE_${n}`;
  return tag;
}

/** The oracle as one shell command run in the workspace: write solve.sh, rewrite Harbor's paths, run it. */
export function oracleCommand(task: HarborTaskDir): string {
  const tag = hereDocTag(task.solveScript);
  const file = `${HARBOR_ORACLE_DIR}/solve.sh`;
  return [
    `W="$PWD"; mkdir -p ${HARBOR_ORACLE_DIR} && cat > ${file} <<'${tag}'`,
    `${task.solveScript}${task.solveScript.endsWith('\n') ? '' : '\n'}${tag}`,
    `${rewritePathsCommand(harborMappings(task.workdir), file)} && bash ${file}`,
  ].join('\n');
}

function harborModelScript(tasks: readonly HarborTaskDir[], scriptId: string): ModelScriptInput {
  return {
    schema: MODEL_SCRIPT_SCHEMA,
    id: scriptId,
    description: 'oracle and baseline paths of Harbor task directories (generated by experiments/rollout/tasks/harbor.ts)',
    tasks: tasks.flatMap((task) => [
      { id: taskId(task), turns: [{ shell: 'ls -la' }, { shell: oracleCommand(task) }, { text: `Ran the solution of ${taskId(task)}.` }] },
      { id: `${taskId(task)}.wrong`, turns: [{ shell: 'ls -la' }, { text: `Looked at ${taskId(task)} and changed nothing.` }] },
    ]),
  };
}

function treeDigest(hash: ReturnType<typeof createHash>, dir: string, prefix = ''): void {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const rel = `${prefix}${name}`;
    if (statSync(path).isDirectory()) treeDigest(hash, path, `${rel}/`);
    else hash.update(`${rel}\0`).update(readFileSync(path)).update('\0');
  }
}

export async function loadHarborTaskSet(path: string, opts: HarborLoadOptions): Promise<TaskSet> {
  const tasks = harborTaskDirs(path).map(readHarborTaskDir);
  const ids = new Map<string, string>();
  for (const task of tasks) {
    const id = taskId(task);
    if (ids.has(id)) throw new UserError(`Harbor task ${task.dir}: its id ${id} is also ${ids.get(id)}'s; rename one directory`);
    ids.set(id, task.dir);
    checkPackages(task, opts.imagePackages);
  }
  const hash = createHash('sha256').update(`harbor loader ${LOADER_VERSION}\n`);
  const testDigests = new Map<string, string>();
  for (const task of tasks) {
    hash.update(`${taskId(task)}\0`);
    treeDigest(hash, task.dir);
    const tests = createHash('sha256');
    treeDigest(tests, join(task.dir, 'tests'));
    testDigests.set(task.dir, tests.digest('hex'));
  }
  const digest = hash.digest('hex').slice(0, 16);
  const setId = basename(resolve(path)).replace(/[^A-Za-z0-9_.-]/g, '_') || 'harbor';
  const scriptId = `rollout-harbor-${digest.slice(0, 12)}`;
  const entry = await cachedEntry<{ commits: Record<string, string>; prepare?: Record<string, PrepareTiming[]> }>(opts.cacheDir, `harbor-${setId}-${digest}`, async (dir) => {
    const commits: Record<string, string> = {};
    const prepare: Record<string, PrepareTiming[]> = {};
    for (const task of tasks) {
      const repo = join(dir, 'baselines', taskId(task));
      mkdirSync(repo, { recursive: true });
      prepare[taskId(task)] = harborBaseline(task, repo);
      if (readdirSync(repo).length === 0) writeFileSync(join(repo, '.gitkeep'), ''); // git commits no empty tree
      commits[taskId(task)] = await commitDeterministicRepo(repo, `${taskId(task)}: baseline`, HARBOR_EPOCH);
    }
    const script = parseModelScript(harborModelScript(tasks, scriptId), `the script generated from ${path}`);
    writeFileSync(join(dir, 'model-script.yaml'), `# generated from ${path} by experiments/rollout/tasks/harbor.ts\n${stringifyYaml(script, { lineWidth: 0 })}`);
    return { commits, prepare };
  });
  opts.log?.(`rollout tasks: ${setId} (${tasks.length} Harbor task${tasks.length === 1 ? '' : 's'}) ${entry.built ? 'prepared' : 'reused'} at ${entry.dir}`);
  // The prepare steps ran once, when the baselines were built (like a cached docker build); say how long they took.
  for (const [id, timings] of Object.entries(entry.meta.prepare ?? {})) {
    if (timings.length > 0) opts.log?.(`rollout tasks: ${id} environment prepare (built once, cached): ${timings.map((t) => `${t.command} ${Math.round(t.ms)} ms (Dockerfile:${t.line})`).join(', ')}`);
  }
  const scriptPath = join(entry.dir, 'model-script.yaml');
  return {
    id: setId,
    tasks: tasks.map((task): RolloutTask => {
      const id = taskId(task);
      const repoDir = join(entry.dir, 'baselines', id);
      return {
        id,
        source: 'harbor',
        origin: task.dir,
        repoDir,
        baseCommit: entry.meta.commits[id]!,
        prompt: task.instruction,
        scriptPath,
        scriptTaskId: (attemptPath: AttemptPath) => (attemptPath === 'right' ? id : `${id}.wrong`),
        evaluator: new HarborEvaluator({ taskDir: task.dir, baselineDir: repoDir, workdir: task.workdir, timeoutSeconds: task.verifierTimeoutSec }, testDigests.get(task.dir)!),
        tests: { failToPass: [HARBOR_VERIFIER_TEST], passToPass: [] },
        gold: { kind: 'shell', commands: [oracleCommand(task)] },
      };
    }),
  };
}
