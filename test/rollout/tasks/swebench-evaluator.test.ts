/**
 * swebench 5.0.2's own grading (make_test_spec + get_eval_report, in the venv the build script
 * makes) against sandbench's stdlib unittest grader, on the gold, empty and wrong patches of every
 * shipped SWE-bench-format row and the gold/empty candidates of every built-in task: `grader: both`
 * runs both on the same scoring run, and they must agree on every candidate. Unjudgeable logs are
 * evaluator errors (infrastructure), never reward 0.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModelScript } from '../../../services/model/index.ts';
import type { RolloutTask, TaskScore, TaskSet } from '../../../experiments/rollout/task-contract.ts';
import { loadTaskSet, parseSweInstances, SWE_FIXTURE_JSONL } from '../../../experiments/rollout/tasks/index.ts';
import { generatedEvalScript, unittestLogKey } from '../../../experiments/rollout/tasks/swebench-evaluator.ts';
import { goldCandidate } from '../../../experiments/rollout/tasks/solvability.ts';
import { tempDir } from '../../support/temp-dirs.ts';
import { readFileSync } from 'node:fs';
import { applyAndScore, scoreCandidate, shellTurns } from './score-on-host.ts';

const root = tempDir('sandbench-swebench-grader-');
const cacheDir = join(root, 'cache');
let swe: TaskSet;

beforeAll(async () => {
  swe = await loadTaskSet('swe-fixture', { cacheDir, grader: 'both' });
}, 300_000);

function agreement(score: TaskScore): { swebench: number; unittest: number | null | undefined } {
  expect(score.evaluatorError, JSON.stringify(score)).toBeUndefined();
  return { swebench: score.reward, unittest: score.grade?.unittest_reward };
}

describe('swebench grader', () => {
  it('generates SWE-bench\'s eval-script shape and parse_log_django keys for unittest ids', () => {
    expect(unittestLogKey('tests.test_count.CountTest.test_whitespace')).toBe('test_whitespace (tests.test_count.CountTest.test_whitespace)');
    const script = generatedEvalScript([{ id: 'a', target: 'tests.t.C.test_a' }, { id: 'b', target: "tests.t.C.test_b'q" }], 30);
    expect(script.split('\n')).toEqual(["#!/bin/bash", 'set -uxo pipefail', ": '>>>>> Start Test Output'", `timeout -k 5 30 python3 -B -m unittest -v 'tests.t.C.test_a' 'tests.t.C.test_b'\\''q'`, ": '>>>>> End Test Output'", '']);
  });

  it('agrees with the unittest grader on the gold, empty and wrong patches of every shipped SWE-bench-format row', async () => {
    const script = loadModelScript(swe.tasks[0]!.scriptPath);
    const rows: { task: string; candidate: string; swebench: number; unittest: number | null | undefined; resolution: string | undefined }[] = [];
    for (const task of swe.tasks) {
      for (const [candidate, commands] of [['gold', shellTurns(script, task.scriptTaskId('right'))], ['empty', []], ['wrong', shellTurns(script, task.scriptTaskId('wrong'))]] as const) {
        const { score } = await applyAndScore(task, commands, root);
        expect(score.grade).toMatchObject({ grader: 'swebench 5.0.2', parser: 'parse_log_django', parsed: true });
        rows.push({ task: task.id, candidate, ...agreement(score), resolution: score.grade?.resolution });
      }
    }
    for (const row of rows) {
      expect(row.unittest, JSON.stringify(row)).toBe(row.swebench);
      expect(row.swebench, JSON.stringify(row)).toBe(row.candidate === 'gold' ? 1 : 0);
      expect(row.resolution, JSON.stringify(row)).toBe(row.candidate === 'gold' ? 'FULL' : row.resolution === 'PARTIAL' ? 'PARTIAL' : 'NO');
    }
    expect(rows).toHaveLength(9);
    // a partial fix of a multi-test row is PARTIAL by swebench's rules (some FAIL_TO_PASS pass, every PASS_TO_PASS passes)
    expect(rows.filter((row) => row.resolution === 'PARTIAL').length).toBeGreaterThan(0);
  }, 300_000);

  it('agrees on the gold and empty candidates of every built-in task', async () => {
    const builtin = await loadTaskSet('builtin', { cacheDir, grader: 'both' });
    for (const task of builtin.tasks) {
      const gold = await scoreCandidate(task, await goldCandidate(task, tempDir('gold-')), tempDir('score-'));
      expect({ task: task.id, ...agreement(gold) }).toEqual({ task: task.id, swebench: 1, unittest: 1 });
      const empty = await applyAndScore(task, [], root);
      expect({ task: task.id, ...agreement(empty.score) }).toEqual({ task: task.id, swebench: 0, unittest: 0 });
    }
  }, 300_000);

  it('reads a row\'s own eval_script and log_parser, and refuses one without the other naming the field', () => {
    const row = JSON.parse(readFileSync(SWE_FIXTURE_JSONL, 'utf8').split('\n')[0]!) as Record<string, unknown>;
    const own = parseSweInstances(JSON.stringify({ ...row, eval_script: '#!/bin/bash\necho hi\n', log_parser: 'parse_log_pytest', version: 2 }), 'rows.jsonl')[0]!;
    expect(own.evalScript).toEqual({ evalScript: '#!/bin/bash\necho hi\n', logParser: 'parse_log_pytest', evalType: 'pass_and_fail' });
    expect(own.version).toBe('2');
    expect(() => parseSweInstances(JSON.stringify({ ...row, eval_script: 'echo hi' }), 'rows.jsonl')).toThrow(/rows\.jsonl:1 instance sandbench-fixtures__wordcount-1: field log_parser: missing; give a swebench PARSER_REGISTRY name/);
  });

  it('a log without the start marker is an evaluator error, not reward 0', async () => {
    const task: RolloutTask = swe.tasks[0]!;
    const score = await task.evaluator.parseScore({ exitCode: 127, stdout: 'bash: .sandbench-score/eval.sh: No such file or directory', stderr: '' });
    expect(score.evaluatorError).toMatch(/no ">>>>> Start Test Output" marker/);
  });
});
