/**
 * SWE-bench / SWE-Gym instances as a rollout task set, on local repositories only (no hub
 * download). Per instance: the repository is found through the caller's map, its base_commit is
 * fetched alone (depth 1) into a baseline directory under the cache, the gold and test patches are
 * checked to apply there, and the task is scored by applying test_patch over the candidate and
 * running FAIL_TO_PASS + PASS_TO_PASS (reward 1 iff all pass). The model script is generated from
 * the gold patches (swe-script.ts). Repositories named `sandbench-fixtures/<name>` are the shipped
 * fixture repositories, generated on demand (swe-fixture.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { UserError } from '../../../harness/errors.ts';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { parseModelScript } from '../../../services/model/index.ts';
import type { AttemptPath, RolloutTask, TaskSet } from '../task-contract.ts';
import { cachedEntry } from './baseline-cache.ts';
import { gitIn } from './git.ts';
import { FIXTURE_REPO_OWNER, ensureFixtureRepos } from './swe-fixture.ts';
import { readSweInstances, type SweInstance } from './swe-instances.ts';
import { scriptTaskIds, sweModelScript } from './swe-script.ts';
import { evaluatorFor, type GraderChoice } from './swebench-evaluator.ts';
import { ensureSwebenchGrader } from './swebench-venv.ts';
import { DEFAULT_TEST_DEADLINE_S, testDeadline as deadline, UnittestEvaluator } from './unittest-evaluator.ts';

export const SWE_FIXTURE_JSONL = join(PROJECT_ROOT, 'data', 'rollout-tasks', 'swe-fixture.jsonl');
/** Bumped when baselines or the generated script change shape (part of the cache key). */
const LOADER_VERSION = 1;

/** Where local repositories are: repo name → directory, or a directory holding `<owner>__<name>` or `<owner>/<name>`. */
export type RepoSource = Readonly<Record<string, string>> | string;

export interface SweLoadOptions {
  readonly cacheDir: string;
  readonly repos?: RepoSource;
  readonly log?: (line: string) => void;
  /** The scoring runner's own deadline on the tests (evaluator.deadlineMs); default 45 s. */
  readonly testDeadlineSeconds?: number;
  /** Who grades: sandbench's stdlib unittest runner (default), swebench 5.0.2's rules, or both (swebench's reward). */
  readonly grader?: GraderChoice;
}

function at(file: string, instance: SweInstance): string {
  return `${file}:${instance.line} instance ${instance.instanceId}`;
}

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The directory of `repo`, or a list of where it was looked for. */
function findRepo(repo: string, roots: readonly string[], map: Readonly<Record<string, string>>): { dir: string } | { looked: string[] } {
  if (map[repo] !== undefined) return isDir(map[repo]) ? { dir: map[repo] } : { looked: [map[repo]] };
  const [owner, name] = repo.split('/') as [string, string];
  const looked: string[] = [];
  for (const root of roots) {
    for (const candidate of [join(root, `${owner}__${name}`), join(root, owner, name)]) {
      if (isDir(candidate)) return { dir: candidate };
      looked.push(candidate);
    }
  }
  return { looked };
}

async function checkRepository(file: string, instance: SweInstance, dir: string): Promise<void> {
  const repoCheck = await gitIn(dir, ['rev-parse', '--git-dir'], { reject: false });
  if (repoCheck.exitCode !== 0) throw new UserError(`${at(file, instance)}: field repo: ${dir} (for "${instance.repo}") is not a git repository; map the repo name to a local clone`);
  const commit = await gitIn(dir, ['cat-file', '-e', `${instance.baseCommit}^{commit}`], { reject: false });
  if (commit.exitCode !== 0) {
    throw new UserError(`${at(file, instance)}: field base_commit: commit ${instance.baseCommit} is not in ${dir}; fetch it into that clone (git fetch origin ${instance.baseCommit}) or correct the instance's base_commit`);
  }
}

/** The baseline of one instance: only base_commit, fetched at depth 1, checked out detached. */
async function checkoutBaseline(file: string, instance: SweInstance, repoDir: string, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  await gitIn(dir, ['init', '-q']);
  rmSync(join(dir, '.git', 'hooks'), { recursive: true, force: true });
  for (const [key, value] of [['core.hooksPath', '/dev/null'], ['gc.auto', '0'], ['core.autocrlf', 'false']]) await gitIn(dir, ['config', key!, value!]);
  // protocol v2 lets a local fetch ask for any commit id; the v0 setting covers older servers
  await gitIn(dir, ['-c', 'protocol.version=2', '-c', 'uploadpack.allowAnySHA1InWant=true', 'fetch', '-q', '--no-tags', '--depth', '1', realpathSync(repoDir), instance.baseCommit]);
  await gitIn(dir, ['checkout', '-q', '--detach', instance.baseCommit]);
  rmSync(join(dir, '.git', 'FETCH_HEAD'), { force: true }); // names the host path of the source clone
  for (const field of ['patch', 'test_patch'] as const) {
    const patch = field === 'patch' ? instance.patch : instance.testPatch;
    const check = await gitIn(dir, ['apply', '--check', '--whitespace=nowarn', '-'], { input: patch, reject: false });
    if (check.exitCode !== 0) {
      const reason = check.stderr.trim().split('\n').slice(0, 2).join('; ');
      throw new UserError(`${at(file, instance)}: field ${field}: the ${field === 'patch' ? 'gold patch' : 'test patch'} does not apply to base_commit ${instance.baseCommit.slice(0, 12)} (${reason}); regenerate it against that commit (git diff ${instance.baseCommit.slice(0, 12)})`);
    }
  }
}

function safeSetId(file: string): string {
  return basename(file).replace(/\.jsonl$/, '').replace(/[^A-Za-z0-9_.-]/g, '_') || 'swe';
}

export async function loadSweTaskSet(file: string, opts: SweLoadOptions): Promise<TaskSet> {
  const instances = readSweInstances(file);
  const ids = new Set(instances.map((instance) => instance.instanceId));
  for (const instance of instances) {
    const wrong = scriptTaskIds(instance.instanceId).wrong;
    if (ids.has(wrong)) throw new UserError(`${at(file, instance)}: field instance_id: "${wrong}" is also an instance id, but names this instance's wrong path in the model script; rename one of them`);
  }
  const map = typeof opts.repos === 'object' ? { ...opts.repos } : {};
  const roots = [...(typeof opts.repos === 'string' ? [opts.repos] : []), join(dirname(file), 'repos')];
  if (instances.some((instance) => instance.repo.startsWith(`${FIXTURE_REPO_OWNER}/`) && map[instance.repo] === undefined)) {
    const fixtures = await ensureFixtureRepos(opts.cacheDir);
    for (const [name, dir] of Object.entries(fixtures.repos)) map[name] ??= dir;
  }
  const repoDirs = new Map<string, string>();
  for (const instance of instances) {
    const found = findRepo(instance.repo, roots, map);
    if (!('dir' in found)) {
      throw new UserError(
        `${at(file, instance)}: field repo: no local repository for "${instance.repo}" (looked in ${found.looked.join(', ')}); map it in rollout.repos ({"${instance.repo}": "/path/to/clone"}) or put a clone at one of those paths — sandbench never downloads repositories`,
      );
    }
    await checkRepository(file, instance, found.dir);
    repoDirs.set(instance.instanceId, realpathSync(found.dir));
  }
  const hash = createHash('sha256').update(`swe loader ${LOADER_VERSION}\n`).update(readFileSync(file));
  for (const instance of instances) hash.update(`${instance.instanceId}\0${repoDirs.get(instance.instanceId)}\0`);
  const setId = safeSetId(file);
  const digest = hash.digest('hex').slice(0, 16);
  const scriptId = `rollout-swe-${digest.slice(0, 12)}`;
  const entry = await cachedEntry<{ scriptId: string }>(opts.cacheDir, `swe-${setId}-${digest}`, async (dir) => {
    for (const instance of instances) await checkoutBaseline(file, instance, repoDirs.get(instance.instanceId)!, join(dir, 'baselines', instance.instanceId));
    const script = parseModelScript(sweModelScript(instances, scriptId), `the script generated from ${file}`);
    writeFileSync(join(dir, 'model-script.yaml'), `# generated from ${file} by experiments/rollout/tasks/swe-script.ts\n${stringifyYaml(script, { lineWidth: 0 })}`);
    return { scriptId };
  });
  opts.log?.(`rollout tasks: ${setId} (${instances.length} SWE-bench-format instances) ${entry.built ? 'prepared' : 'reused'} at ${entry.dir}`);
  const scriptPath = join(entry.dir, 'model-script.yaml');
  const grader = (opts.grader ?? 'unittest') === 'unittest' ? null : await ensureSwebenchGrader(opts.log);
  const tasks: RolloutTask[] = instances.map((instance) => {
    const repoDir = join(entry.dir, 'baselines', instance.instanceId);
    const scriptIds = scriptTaskIds(instance.instanceId);
    return {
      id: instance.instanceId,
      source: 'swe-bench',
      repoDir,
      baseCommit: instance.baseCommit,
      prompt:
        instance.problemStatement ??
        `Fix the issue in ${instance.repo} (the repository in the current directory) so that these tests pass: ${instance.failToPass.map((test) => test.id).join(', ')}. Do not change the tests.`,
      scriptPath,
      scriptTaskId: (path: AttemptPath) => (path === 'right' ? scriptIds.right : scriptIds.wrong),
      evaluator: evaluatorFor(
        opts.grader ?? 'unittest',
        new UnittestEvaluator({ label: 'swe-bench', baselineDir: repoDir, failToPass: instance.failToPass, passToPass: instance.passToPass, testPatch: instance.testPatch, ...deadline(opts.testDeadlineSeconds) }),
        { instanceId: instance.instanceId, repo: instance.repo, version: instance.version ?? '0', failToPass: instance.failToPass, passToPass: instance.passToPass, rowScript: instance.evalScript, timeoutSeconds: opts.testDeadlineSeconds ?? DEFAULT_TEST_DEADLINE_S },
        grader,
      ),
      tests: { failToPass: instance.failToPass.map((test) => test.id), passToPass: instance.passToPass.map((test) => test.id) },
      gold: { kind: 'patch', patch: instance.patch },
    };
  });
  return { id: setId, tasks };
}
