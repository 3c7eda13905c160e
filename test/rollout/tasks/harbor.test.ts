import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../harness/errors.ts';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { parseModelScript } from '../../../services/model/index.ts';
import { loadTaskSet } from '../../../experiments/rollout/tasks/index.ts';
import { loadHarborTaskSet } from '../../../experiments/rollout/tasks/harbor.ts';
import type { RolloutTask, TaskSet } from '../../../experiments/rollout/task-contract.ts';
import { parse as parseYaml } from 'yaml';
import { tempDir } from '../../support/temp-dirs.ts';
import { applyAndScore, shellTurns } from './score-on-host.ts';

const HARBOR_FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'harbor-tasks');
const root = tempDir('sandbench-harbor-tasks-');
const DEFAULT_PACKAGES = ['python3', 'git', 'busybox', 'ca-certificates'];

async function userError(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UserError);
  return (error as Error).message;
}

function scriptOf(set: TaskSet) {
  return parseModelScript(parseYaml(readFileSync(set.tasks[0]!.scriptPath, 'utf8')), 'harbor script');
}

const taskOf = (set: TaskSet, id: string): RolloutTask => set.tasks.find((task) => task.id === id)!;

/** A copy of one fixture task to break, under a fresh parent directory. */
function copyOf(name: string): string {
  const parent = join(root, `bad-${Math.random().toString(36).slice(2, 8)}`);
  cpSync(join(HARBOR_FIXTURES, name), join(parent, name), { recursive: true });
  return join(parent, name);
}

describe('Harbor task directories as a rollout task set', () => {
  it('loads the fixture set: prompt, baseline from COPY, the verifier as the one required test', async () => {
    const set = await loadTaskSet(`harbor:${HARBOR_FIXTURES}`, { cacheDir: join(root, 'cache'), imagePackages: DEFAULT_PACKAGES });
    expect(set.tasks.map((task) => task.id)).toEqual(['broken-solution', 'count-words', 'write-greeting']);
    const count = taskOf(set, 'count-words');
    expect(count.source).toBe('harbor');
    expect(count.prompt).toMatch(/reports one word too few/);
    expect(readFileSync(join(count.repoDir, 'wc.py'), 'utf8')).toMatch(/len\(words\) - 1/);
    expect(count.tests).toEqual({ failToPass: ['tests/test.sh'], passToPass: [] });
    expect(count.evaluator.version).toMatch(/^harbor-verifier\/1\+[0-9a-f]{16}$/);
    // the same files give the same baseline commit (deterministic repository)
    const again = await loadHarborTaskSet(join(HARBOR_FIXTURES, 'count-words'), { cacheDir: join(root, 'cache2') });
    expect(again.tasks[0]!.baseCommit).toBe(count.baseCommit);
  });

  it('scores the oracle 1, the baseline 0 and a broken oracle 0, through test.sh with Harbor paths rewritten', async () => {
    const set = await loadHarborTaskSet(HARBOR_FIXTURES, { cacheDir: join(root, 'cache') });
    const script = scriptOf(set);
    for (const id of ['count-words', 'write-greeting']) {
      const task = taskOf(set, id);
      const right = await applyAndScore(task, shellTurns(script, task.scriptTaskId('right')), root);
      expect(right.score, id).toMatchObject({ reward: 1, passed: ['tests/test.sh'], grade: { grader: 'harbor-verifier', resolution: 'FULL', verifier_exit: 0 } });
      const wrong = await applyAndScore(task, shellTurns(script, task.scriptTaskId('wrong')), root);
      expect(wrong.score, id).toMatchObject({ reward: 0, failed: ['tests/test.sh'], statuses: { 'tests/test.sh': 'fail' } });
    }
    expect(taskOf(set, 'write-greeting').evaluator.version).not.toBe(taskOf(set, 'count-words').evaluator.version);
    const greeting = await applyAndScore(taskOf(set, 'write-greeting'), shellTurns(script, 'write-greeting'), root);
    expect(greeting.score.grade).toMatchObject({ parser: 'reward.json', harbor_rewards: { reward: 1 } });
    const broken = taskOf(set, 'broken-solution');
    expect((await applyAndScore(broken, shellTurns(script, 'broken-solution'), root)).score).toMatchObject({ reward: 0, grade: { parser: 'reward.txt', harbor_rewards: { reward: 0 } } });
  });

  it('a test.sh that writes no reward, or an unreadable one, is an evaluator error naming the file and fix, never reward 0', async () => {
    const dir = copyOf('write-greeting');
    writeFileSync(join(dir, 'tests', 'test.sh'), '#!/bin/bash\necho checked\n');
    let set = await loadHarborTaskSet(dir, { cacheDir: join(root, 'cache-noreward') });
    let task = set.tasks[0]!;
    let run = await applyAndScore(task, shellTurns(scriptOf(set), task.id), root);
    expect(run.score.grade).toBeUndefined();
    expect(run.score.evaluatorError).toContain(`${dir}/tests/test.sh wrote neither /logs/verifier/reward.txt nor reward.json (exit 0); make it write a reward on every path`);
    expect(run.score.evaluatorError).toContain('checked');
    writeFileSync(join(dir, 'tests', 'test.sh'), '#!/bin/bash\necho "all good" > /logs/verifier/reward.txt\n');
    set = await loadHarborTaskSet(dir, { cacheDir: join(root, 'cache-badreward') });
    task = set.tasks[0]!;
    run = await applyAndScore(task, shellTurns(scriptOf(set), task.id), root);
    expect(run.score.evaluatorError).toMatch(/reward\.txt holds "all good", not a finite number; write a number to reward\.txt/);
  });

  it('refuses a bad task naming the task directory, the file, the field and the fix', async () => {
    const load = (dir: string) => userError(loadHarborTaskSet(dir, { cacheDir: join(root, 'cache-bad'), imagePackages: DEFAULT_PACKAGES }));
    let dir = copyOf('count-words');
    writeFileSync(join(dir, 'task.toml'), '[verifier]\ntimeout_sec = = 3\n');
    expect(await load(dir)).toMatch(new RegExp(`Harbor task ${dir}: task\\.toml is not valid TOML \\(line 2, column \\d+: .*\\); fix the syntax`));
    writeFileSync(join(dir, 'task.toml'), '[environment]\ncpus = "two"\n');
    expect(await load(dir)).toMatch(/task\.toml field environment\.cpus: .*expected number.*; correct it/);
    writeFileSync(join(dir, 'task.toml'), '[environment]\ndocker_image = "ghcr.io/x/y:1"\n');
    expect(await load(dir)).toMatch(/field environment\.docker_image \(ghcr\.io\/x\/y:1\) names a prebuilt registry image .*; remove it/);
    dir = copyOf('count-words');
    writeFileSync(join(dir, 'instruction.md'), '');
    expect(await load(dir)).toMatch(/instruction\.md is empty/);
    dir = copyOf('count-words');
    writeFileSync(join(dir, 'environment', 'Dockerfile'), 'FROM ubuntu:24.04\nWORKDIR /app\n');
    expect(await load(dir)).toMatch(new RegExp(`${dir}/environment/Dockerfile:1: FROM ubuntu:24\\.04 names a registry image .*; change the line to FROM sandbench-task`));
    writeFileSync(join(dir, 'environment', 'Dockerfile'), 'FROM sandbench-task\nWORKDIR /app\nRUN curl -LsSf https://astral.sh/uv/install.sh | sh\n');
    expect(await load(dir)).toMatch(/Dockerfile:3: RUN curl .* cannot be honoured offline .*; move the step into the task/);
    writeFileSync(join(dir, 'environment', 'Dockerfile'), 'FROM sandbench-task\nRUN apt-get install -y \\\n    jq\nWORKDIR /app\n');
    expect(await load(dir)).toMatch(/Dockerfile: RUN apt-get install asks for jq, which the run's task image does not hold; add it to the spec's image\.packages/);
    writeFileSync(join(dir, 'environment', 'Dockerfile'), 'FROM sandbench-task\nWORKDIR /app\nCOPY src/ /opt/\n');
    expect(await load(dir)).toMatch(/Dockerfile:3: COPY to \/opt\/ lands outside the task's working directory \/app/);
    dir = copyOf('count-words');
    rmSync(join(dir, 'tests', 'test.sh'));
    expect(await load(dir)).toMatch(new RegExp(`Harbor task ${dir}: tests/test\\.sh is missing; the verifier must write /logs/verifier/reward\\.txt`));
    rmSync(join(dir, 'task.toml'));
    expect(await load(join(dir, '..'))).toMatch(new RegExp(`Harbor task ${dir}: task\\.toml is missing; every Harbor task needs one`));
    mkdirSync(join(root, 'empty-set'));
    expect(await load(join(root, 'empty-set'))).toMatch(/holds no Harbor task/);
  });
});
