/**
 * Tasks proved solvable before they count (issue 30, item 4): the pre-pass scores each task's
 * baseline and gold solution with the task's own evaluator. Every shipped task (built-in and the
 * SWE-bench-format fixture rows) is solvable; a row whose FAIL_TO_PASS test is misspelled, one whose
 * gold patch breaks a PASS_TO_PASS test and one whose "failing" test already passes are invalid with
 * the reason; verdicts are cached by digest. End to end, a rollout run refuses such a set before its
 * first attempt, or (invalid_tasks: record) records that task's attempts as task_invalid, no reward.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWiring } from '../../../cli/wiring.ts';
import { UserError } from '../../../harness/errors.ts';
import { runSpec } from '../../../harness/run/run-spec.ts';
import { readJournal } from '../../../harness/journal/journal.ts';
import { parseCsv } from '../../../harness/bundle/csv.ts';
import type { RolloutTask } from '../../../experiments/rollout/task-contract.ts';
import { loadTaskSet, SWE_FIXTURE_JSONL } from '../../../experiments/rollout/tasks/index.ts';
import { gitIn } from '../../../experiments/rollout/tasks/git.ts';
import { checkTasks, type ScoreProbe } from '../../../experiments/rollout/tasks/solvability.ts';
import { tempDir } from '../../support/temp-dirs.ts';
import { scoreCandidate } from './score-on-host.ts';

const root = tempDir('sandbench-solvability-');
const cacheDir = join(root, 'cache');
const rows = readFileSync(SWE_FIXTURE_JSONL, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
const wordcount = rows.find((row) => row.instance_id === 'sandbench-fixtures__wordcount-1')!;

/** The real evaluator on the host (the kind runs the same argv in its scoring sandbox), counting calls. */
function hostProbe(): { probe: ScoreProbe; calls: () => number } {
  let calls = 0;
  return {
    probe: async (task, candidate, scratch) => {
      calls += 1;
      return scoreCandidate(task, candidate, scratch);
    },
    calls: () => calls,
  };
}

/** wordcount-1's gold patch plus an edit that makes frequencies() case-sensitive (breaks test_frequencies). */
async function breakingGoldPatch(task: RolloutTask): Promise<string> {
  const work = join(root, 'breaking-gold');
  cpSync(task.repoDir, work, { recursive: true });
  await gitIn(work, ['apply', '-'], { input: String(wordcount.patch) });
  const file = join(work, 'wordcount', 'count.py');
  writeFileSync(file, readFileSync(file, 'utf8').replace('key = word.lower()', 'key = word'));
  return (await gitIn(work, ['diff'])).stdout;
}

let brokenFile = '';
async function brokenRows(): Promise<string> {
  if (brokenFile) return brokenFile;
  const fixture = await loadTaskSet('swe-fixture', { cacheDir });
  const gold = await breakingGoldPatch(fixture.tasks.find((task) => task.id === wordcount.instance_id)!);
  const broken = [
    { ...wordcount, instance_id: 'misspelled-f2p', FAIL_TO_PASS: JSON.stringify(['tests.test_count.CountTest.test_whitespaces']) },
    { ...wordcount, instance_id: 'gold-breaks-p2p', patch: gold },
    { ...wordcount, instance_id: 'f2p-passes-at-base', FAIL_TO_PASS: JSON.stringify(['tests.test_count.CountTest.test_whitespace', 'tests.test_count.CountTest.test_simple']) },
    wordcount,
  ];
  brokenFile = join(root, 'broken.jsonl');
  writeFileSync(brokenFile, broken.map((row) => JSON.stringify(row)).join('\n') + '\n');
  return brokenFile;
}

describe('solvability pre-pass', () => {
  it('proves every shipped task solvable: the 9 built-in tasks and the 3 SWE-bench-format fixture rows', async () => {
    for (const name of ['builtin', 'swe-fixture']) {
      const set = await loadTaskSet(name, { cacheDir });
      const verdicts = await checkTasks(set.tasks, { cacheDir, environmentKey: 'host-test', score: hostProbe().probe });
      expect(verdicts.map((verdict) => [verdict.task_id, verdict.reasons])).toEqual(set.tasks.map((task) => [task.id, []]));
      for (const [index, task] of set.tasks.entries()) {
        for (const test of task.tests.failToPass) expect(verdicts[index]!.base[test], `${task.id} ${test} at base`).not.toBe('pass');
        for (const test of [...task.tests.failToPass, ...task.tests.passToPass]) expect(verdicts[index]!.gold[test], `${task.id} ${test} with gold`).toBe('pass');
      }
    }
  }, 180_000);

  it('finds a misspelled FAIL_TO_PASS test, a gold patch that breaks PASS_TO_PASS and a FAIL_TO_PASS test that already passes', async () => {
    const set = await loadTaskSet(await brokenRows(), { cacheDir });
    const { probe, calls } = hostProbe();
    const lines: string[] = [];
    // an environment key of its own: the shipped row's verdict from the first test is not reused here
    const verdicts = await checkTasks(set.tasks, { cacheDir, environmentKey: 'host-broken', score: probe, log: (line) => lines.push(line) });
    const byId = new Map(verdicts.map((verdict) => [verdict.task_id, verdict]));
    // unittest reports a name it cannot load as a load error (the runner's `error`) or as no test at all (`missing`)
    expect(byId.get('misspelled-f2p')!.valid).toBe(false);
    expect(byId.get('misspelled-f2p')!.reasons).toEqual([expect.stringMatching(/^FAIL_TO_PASS test "tests\.test_count\.CountTest\.test_whitespaces" is (missing|an error) .*check its id\) with the gold solution$/)]);
    expect(byId.get('gold-breaks-p2p')!.valid).toBe(false);
    expect(byId.get('gold-breaks-p2p')!.reasons).toEqual([expect.stringMatching(/^PASS_TO_PASS test "tests\.test_count\.CountTest\.test_frequencies" is fail with the gold solution/)]);
    expect(byId.get('f2p-passes-at-base')!.reasons).toEqual(['FAIL_TO_PASS test "tests.test_count.CountTest.test_simple" already passes on the base commit (it does not test the fix)']);
    expect(byId.get(String(wordcount.instance_id))).toMatchObject({ valid: true, reasons: [] });
    expect(calls()).toBe(8);
    expect(lines.join('\n')).toMatch(/1 of 4 task\(s\) proved solvable .*invalid: misspelled-f2p, gold-breaks-p2p, f2p-passes-at-base/);
    // cached by digest: the same set is not scored again; another environment is
    const again = hostProbe();
    expect(await checkTasks(set.tasks, { cacheDir, environmentKey: 'host-broken', score: again.probe })).toEqual(verdicts);
    expect(again.calls()).toBe(0);
    const elsewhere = hostProbe();
    await checkTasks(set.tasks.slice(0, 1), { cacheDir, environmentKey: 'another-backend', score: elsewhere.probe });
    expect(elsewhere.calls()).toBe(2);
  }, 120_000);

  it('an evaluator that cannot judge stops the check (infrastructure), it never makes a task invalid', async () => {
    const set = await loadTaskSet('swe-fixture', { cacheDir });
    const probe: ScoreProbe = async () => ({ reward: 0, passed: [], failed: [], evaluatorError: 'no SANDBENCH_SCORE line' });
    await expect(checkTasks(set.tasks.slice(0, 1), { cacheDir, environmentKey: 'broken-evaluator', score: probe })).rejects.toThrow(/could not be judged: no SANDBENCH_SCORE line/);
  });
});

describe('rollout run with unsolvable tasks', () => {
  function spec(name: string, file: string, policy: string): string {
    const path = join(root, `${name}.yaml`);
    writeFileSync(
      path,
      `name: ${name}\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 5\ntimeout: 120s\nresamples: 200\nrollout:\n  tasks: ${file}\n  attempts: 8\n  concurrency: [2]\n  model: [{ slots: 2, base_ms: 0 }]\n  scoring_backend: host\n  wrong_fraction: 0\n  invalid_tasks: ${policy}\n`,
    );
    return path;
  }

  it('refuses the set before its first attempt, naming each task and its reason', async () => {
    const out = join(root, 'bundle-refuse');
    const error = await runSpec({ specPath: spec('solvable-refuse', await brokenRows(), 'refuse'), overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UserError);
    const message = (error as Error).message;
    expect(message).toMatch(/3 task\(s\) of .*broken\.jsonl are not solvable/);
    expect(message).toMatch(/misspelled-f2p: FAIL_TO_PASS test "tests\.test_count\.CountTest\.test_whitespaces" is (missing|an error)/);
    expect(message).toContain('gold-breaks-p2p: PASS_TO_PASS test "tests.test_count.CountTest.test_frequencies" is fail');
    expect(message).toMatch(/rollout\.invalid_tasks: record/);
    let journaled = 0;
    try {
      journaled = readJournal(join(out, 'journal.jsonl')).records.length;
    } catch {
      journaled = 0; // no journal at all: nothing ran
    }
    expect(journaled).toBe(0);
  }, 180_000);

  it('invalid_tasks: record runs the solvable task and records the others as task_invalid with no reward', async () => {
    const out = join(root, 'bundle-record');
    const result = await runSpec({ specPath: spec('solvable-record', await brokenRows(), 'record'), overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    expect(result.records).toHaveLength(8);
    for (const record of result.records) {
      if (record.facts.task_id === wordcount.instance_id) {
        expect(record).toMatchObject({ outcome: 'ok', failure_category: null });
        expect(record.metrics.reward).toBe(1);
      } else {
        expect(record).toMatchObject({ outcome: 'failed', failure_category: 'task_invalid' });
        expect(record.metrics).toEqual({});
        expect(record.notes[0]).toMatch(/is not solvable as written/);
      }
    }
    const invalid = result.records.filter((record) => record.failure_category === 'task_invalid').length;
    expect(invalid).toBeGreaterThan(0);
    const summary = parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows[0]!;
    expect(summary.planned).toBe('8');
    expect(summary.failures).toBe(`task_invalid=${invalid}`);
  }, 180_000);
});
