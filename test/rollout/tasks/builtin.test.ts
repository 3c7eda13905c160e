import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModelScript } from '../../../services/model/index.ts';
import type { TaskSet } from '../../../experiments/rollout/task-contract.ts';
import { BUILTIN_SCRIPT, loadBuiltinTaskSet, readBuiltinTasks } from '../../../experiments/rollout/tasks/builtin.ts';
import { applyAndScore, scoreCandidate, shellTurns, type HostRun } from './score-on-host.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-builtin-tasks-'));
let set: TaskSet;
const script = loadModelScript(BUILTIN_SCRIPT);

beforeAll(async () => {
  set = await loadBuiltinTaskSet({ cacheDir: join(root, 'cache') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('built-in rollout task set', () => {
  it('has at least 8 tasks, each with a right and a wrong scripted path', () => {
    expect(set.tasks.length).toBeGreaterThanOrEqual(8);
    const ids = new Set(script.tasks.map((task) => task.id));
    for (const task of set.tasks) {
      expect(ids.has(task.scriptTaskId('right'))).toBe(true);
      expect(ids.has(task.scriptTaskId('wrong'))).toBe(true);
      expect(task.scriptTaskId('wrong')).not.toBe(task.scriptTaskId('right'));
    }
    // every script task belongs to a task (no stale paths)
    expect(script.tasks.length).toBe(set.tasks.length * 2);
  });

  it('is deterministic: a second cache prepares the same commit ids, the same cache is reused', async () => {
    const again = await loadBuiltinTaskSet({ cacheDir: join(root, 'cache-2') });
    expect(again.tasks.map((task) => task.baseCommit)).toEqual(set.tasks.map((task) => task.baseCommit));
    const lines: string[] = [];
    const reused = await loadBuiltinTaskSet({ cacheDir: join(root, 'cache'), log: (line) => lines.push(line) });
    expect(reused.tasks[0]!.repoDir).toBe(set.tasks[0]!.repoDir);
    expect(lines.join('\n')).toMatch(/reused/);
    for (const task of set.tasks) expect(task.baseCommit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('scores every unfixed baseline 0 with the failing tests named', async () => {
    const defs = new Map(readBuiltinTasks().map((def) => [def.id, def]));
    for (const task of set.tasks) {
      const { score } = await applyAndScore(task, [], root);
      expect(score.evaluatorError).toBeUndefined();
      expect(score.reward, task.id).toBe(0);
      expect(score.failed, task.id).toEqual(defs.get(task.id)!.failToPass.map((test) => test.id));
    }
  });

  // each path runs once; the write-loss check reuses the right paths' workspaces
  const runs = new Map<string, HostRun>();
  for (const path of ['right', 'wrong'] as const) {
    it(`scores every task's ${path} path ${path === 'right' ? 1 : 0} when its shell turns run on a baseline copy`, async () => {
      for (const task of set.tasks) {
        const run = await applyAndScore(task, shellTurns(script, task.scriptTaskId(path)), root);
        runs.set(`${task.id}:${path}`, run);
        const { score, candidate } = run;
        expect(score.evaluatorError, task.id).toBeUndefined();
        expect({ task: task.id, reward: score.reward }).toEqual({ task: task.id, reward: path === 'right' ? 1 : 0 });
        if (path === 'wrong') expect(score.failed.length, task.id).toBeGreaterThan(0);
        expect(candidate.changed.length + candidate.deleted.length, task.id).toBeGreaterThan(0);
        // no bytecode or git metadata in the candidate
        expect(candidate.changed.filter((file) => file.includes('__pycache__') || file.startsWith('.git/')), task.id).toEqual([]);
      }
    });
  }

  it('a candidate that loses its last write scores 0 for every task', async () => {
    for (const task of set.tasks) {
      const run = runs.get(`${task.id}:right`);
      if (!run) throw new Error(`the right path of ${task.id} did not run`);
      const { candidate, lastWrite } = run;
      expect(lastWrite.length, task.id).toBeGreaterThan(0);
      // the candidate as a substrate that lost the last command's writes would hand it over
      const dropped = { ...candidate, changed: candidate.changed.filter((path) => !lastWrite.includes(path)), deleted: candidate.deleted.filter((path) => !lastWrite.includes(path)) };
      const score = await scoreCandidate(task, dropped, mkdtempSync(join(root, 'drop-')));
      expect({ task: task.id, reward: score.reward }).toEqual({ task: task.id, reward: 0 });
    }
  });

  it('never modifies the baseline', () => {
    const task = set.tasks[0]!;
    expect(runs.has(`${task.id}:right`)).toBe(true);
    expect(readFileSync(join(task.repoDir, 'numutil', 'clamp.py'), 'utf8')).toContain('return min(value, high - 1)');
    expect(existsSync(join(task.repoDir, '.sandbench-score'))).toBe(false);
  });
});

