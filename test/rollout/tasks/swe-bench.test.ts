import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserError } from '../../../harness/errors.ts';
import { loadModelScript } from '../../../services/model/index.ts';
import type { TaskSet } from '../../../experiments/rollout/task-contract.ts';
import { loadTaskSet, SWE_FIXTURE_JSONL } from '../../../experiments/rollout/tasks/index.ts';
import { gitIn } from '../../../experiments/rollout/tasks/git.ts';
import { ensureFixtureRepos } from '../../../experiments/rollout/tasks/swe-fixture.ts';
import { wrongPatch } from '../../../experiments/rollout/tasks/swe-script.ts';
import { applyAndScore, shellTurns } from './score-on-host.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-swe-tasks-'));
const cacheDir = join(root, 'cache');
const shipped = readFileSync(SWE_FIXTURE_JSONL, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
let set: TaskSet;

beforeAll(async () => {
  set = await loadTaskSet('swe-fixture', { cacheDir });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let fileNo = 0;
function jsonl(rows: readonly unknown[]): string {
  fileNo += 1;
  const dir = join(root, `in-${fileNo}`);
  mkdirSync(dir);
  const file = join(dir, 'instances.jsonl');
  writeFileSync(file, rows.map((row) => (typeof row === 'string' ? row : JSON.stringify(row))).join('\n') + '\n');
  return file;
}

async function loadError(rows: readonly unknown[], repos?: Record<string, string> | string): Promise<string> {
  const file = jsonl(rows);
  const error = await loadTaskSet(file, { cacheDir, ...(repos ? { repos } : {}) }).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UserError);
  const message = (error as Error).message;
  expect(message).toContain(file);
  return message;
}

describe('SWE-bench-format instances', () => {
  it('loads the three shipped fixture instances with baselines at their base commits', async () => {
    expect(set.id).toBe('swe-fixture');
    expect(set.tasks.map((task) => task.id)).toEqual(shipped.map((row) => row.instance_id));
    for (const [index, task] of set.tasks.entries()) {
      expect(task.source).toBe('swe-bench');
      expect(task.baseCommit).toBe(shipped[index]!.base_commit);
      expect((await gitIn(task.repoDir, ['rev-parse', 'HEAD'])).stdout.trim()).toBe(task.baseCommit);
      expect(task.prompt).toBe(shipped[index]!.problem_statement);
      expect(task.evaluator.version).toMatch(/^swe-bench-unittest\/1\+[0-9a-f]{16}$/);
    }
    // fixture repositories are generated deterministically: a second cache has the same commit ids
    const again = await ensureFixtureRepos(join(root, 'other-cache'));
    expect(Object.values(again.commits).flat()).toEqual(expect.arrayContaining(shipped.map((row) => row.base_commit)));
    const lines: string[] = [];
    await loadTaskSet('swe-fixture', { cacheDir, log: (line) => lines.push(line) });
    expect(lines.join('\n')).toMatch(/reused/);
  });

  it('scores each baseline 0, each gold-patch path 1 and each partial-patch path 0', async () => {
    const script = loadModelScript(set.tasks[0]!.scriptPath);
    for (const task of set.tasks) {
      const baseline = await applyAndScore(task, [], root);
      expect({ task: task.id, reward: baseline.score.reward, error: baseline.score.evaluatorError }).toEqual({ task: task.id, reward: 0, error: undefined });
      const right = await applyAndScore(task, shellTurns(script, task.scriptTaskId('right')), root);
      expect({ task: task.id, reward: right.score.reward, failed: right.score.failed }).toEqual({ task: task.id, reward: 1, failed: [] });
      const wrong = await applyAndScore(task, shellTurns(script, task.scriptTaskId('wrong')), root);
      expect({ task: task.id, reward: wrong.score.reward }).toEqual({ task: task.id, reward: 0 });
      // the test patch is the evaluator's, never the candidate's
      expect(right.candidate.changed.some((path) => path.startsWith('tests/'))).toBe(false);
    }
    expect(shipped.map((row) => wrongPatch(row.patch as string).kind)).toEqual(['none', 'first-file', 'first-hunk']);
  });

  it('accepts your own repositories through a name map or a directory of owner__name clones', async () => {
    const fixtures = await ensureFixtureRepos(cacheDir);
    const row: Record<string, unknown> = { ...shipped[0]!, repo: 'acme/wordcount', instance_id: 'acme__wordcount-1' };
    const mapped = await loadTaskSet(jsonl([row]), { cacheDir, repos: { 'acme/wordcount': fixtures.repos['sandbench-fixtures/wordcount']! } });
    expect(mapped.tasks[0]!.baseCommit).toBe(row.base_commit);
    const reposRoot = join(root, 'clones');
    mkdirSync(reposRoot);
    symlinkSync(fixtures.repos['sandbench-fixtures/wordcount']!, join(reposRoot, 'acme__wordcount'));
    const rooted = await loadTaskSet(jsonl([row]), { cacheDir, repos: reposRoot });
    expect(rooted.tasks.map((task) => task.id)).toEqual(['acme__wordcount-1']);
  });

  describe('malformed instances are UserErrors naming the file, line, instance, field and fix', () => {
    const good = () => ({ ...shipped[0]! });
    it('a missing field', async () => {
      const { test_patch: _, ...row } = good();
      expect(await loadError([good(), row])).toMatch(/:2 instance sandbench-fixtures__wordcount-1: field test_patch: missing; give the test patch/);
    });
    it('a test list that is not a list, or not of strings', async () => {
      expect(await loadError([{ ...good(), FAIL_TO_PASS: '["tests.a.B.c"' }])).toMatch(/:1 instance \S+: field FAIL_TO_PASS: .*JSON-encoded list/);
      expect(await loadError([{ ...good(), PASS_TO_PASS: [1] }])).toMatch(/field PASS_TO_PASS\[0\]: .*expected string/);
      expect(await loadError([{ ...good(), FAIL_TO_PASS: '[]' }])).toMatch(/field FAIL_TO_PASS: the list is empty/);
    });
    it('a test id no stdlib runner can run', async () => {
      expect(await loadError([{ ...good(), FAIL_TO_PASS: ['tests/test_count.py::test_x[1-2]'] }])).toMatch(/field FAIL_TO_PASS\[0\]: test id "tests\/test_count.py::test_x\[1-2\]" is not a unittest name/);
    });
    it('a line that is not JSON, a duplicate id, a bad commit id', async () => {
      expect(await loadError([good(), '{"instance_id": '])).toMatch(/instances\.jsonl:2: not a JSON object/);
      expect(await loadError([good(), good()])).toMatch(/:2 instance \S+: field instance_id: .* also the id on line 1/);
      expect(await loadError([{ ...good(), base_commit: 'e5f4833' }])).toMatch(/field base_commit: expected the full 40-hex commit id/);
    });
    it('an unknown repository', async () => {
      expect(await loadError([{ ...good(), repo: 'nobody/nothing' }])).toMatch(/field repo: no local repository for "nobody\/nothing" \(looked in .*nobody__nothing.*\); map it in rollout\.repos/);
    });
    it('a repository that is not a git repository', async () => {
      const plain = join(root, 'plain');
      mkdirSync(plain, { recursive: true });
      expect(await loadError([{ ...good(), repo: 'acme/plain' }], { 'acme/plain': plain })).toMatch(/field repo: .*plain.* is not a git repository/);
    });
    it('a base commit the repository does not have', async () => {
      expect(await loadError([{ ...good(), base_commit: '0123456789abcdef0123456789abcdef01234567' }])).toMatch(
        /field base_commit: commit 0123456789abcdef0123456789abcdef01234567 is not in .*wordcount; fetch it/,
      );
    });
    it('a gold patch or test patch that does not apply', async () => {
      const patch = (good().patch as string).replace('def words(text):', 'def words(texts):');
      expect(await loadError([{ ...good(), patch }])).toMatch(/field patch: the gold patch does not apply to base_commit e5f483328bab .*regenerate it/);
      const testPatch = (good().test_patch as string).replace('def test_frequencies', 'def test_frequency');
      expect(await loadError([{ ...good(), test_patch: testPatch }])).toMatch(/field test_patch: the test patch does not apply/);
      expect(await loadError([{ ...good(), patch: 'just words' }])).toMatch(/field patch: no "diff --git" section/);
    });
  });
});
