/**
 * The builtin-fix task (issue 19): on every qualifying built-in rollout task the prefix alone leaves
 * the fix unfinished (reward 0), prefix + the right continuation is rewarded (1) and prefix + the
 * wrong continuation is not (0), scored by the task's own evaluator; the prefix's calls round-trip
 * through all seven native formats with their recorded observations; the path draw is seeded.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBuiltinTaskSet } from '../../../experiments/rollout/tasks/index.ts';
import type { RolloutTask } from '../../../experiments/rollout/task-contract.ts';
import { AGENT_FORMATS, type ReplayAgent } from '../../../experiments/replay/agents.ts';
import { GENERATORS } from '../../../experiments/replay/generate/index.ts';
import { BUILTIN_FIX_TASKS, builtinFixTask, fixAssignment, fixPaths } from '../../../experiments/replay/reexecute/builtin-fix-task.ts';
import { prefixInput } from '../../../experiments/replay/reexecute/replay-inputs.ts';
import type { FixtureEntry } from '../../../experiments/replay/replay-fixtures.ts';
import { applyAndScore } from '../../rollout/tasks/score-on-host.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-builtin-fix-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let tasks: Map<string, RolloutTask>;
beforeAll(async () => {
  const set = await loadBuiltinTaskSet({ cacheDir: join(root, 'cache') });
  tasks = new Map(set.tasks.map((t) => [t.id, t]));
});

const shells = (turns: readonly object[]) => turns.flatMap((t) => ('shell' in t && typeof t.shell === 'string' ? [t.shell] : []));

describe('builtin-fix trajectories', () => {
  it.each(BUILTIN_FIX_TASKS)('%s: prefix alone 0, prefix + right continuation 1, prefix + wrong continuation 0', async (id) => {
    const task = tasks.get(id)!;
    const paths = fixPaths(id);
    expect((await applyAndScore(task, paths.prefix, root)).score.reward).toBe(0);
    expect((await applyAndScore(task, [...paths.prefix, ...shells(paths.right)], root)).score.reward).toBe(1);
    expect((await applyAndScore(task, [...paths.prefix, ...shells(paths.wrong)], root)).score.reward).toBe(0);
  });

  it('the prefix (inspect, first write, fresh date) round-trips every native format with its recorded observations', () => {
    for (const agent of Object.keys(AGENT_FORMATS) as ReplayAgent[]) {
      const task = builtinFixTask(agent, 0, 20261006);
      const path = join(root, `${agent}-0.${AGENT_FORMATS[agent].extension}`);
      writeFileSync(path, GENERATORS[agent](task));
      const input = prefixInput({ agent, index: 0, path, task } as FixtureEntry);
      expect(input.unsupported, agent).toEqual([]);
      expect(input.calls.map((c) => c.command), agent).toEqual(task.turns.slice(0, 3).map((t) => t.command));
      expect(input.calls.map((c) => c.observation.replace(/\n+$/, '')), agent).toEqual(task.turns.slice(0, 3).map((t) => t.observation.replace(/\n+$/, '')));
      expect(input.calls.map((c) => c.fresh), agent).toEqual([false, false, true]);
    }
    // the recorded inspection is the baseline's bytes; the first write prints nothing
    expect(builtinFixTask('codex', 0, 1).turns[0]!.observation).toContain('def format_row');
    expect(builtinFixTask('codex', 0, 1).turns[1]!.observation).toBe('');
  });

  it('the wrong path is a seeded fraction, stable per (seed, agent, index)', () => {
    const draws = Array.from({ length: 400 }, (_, i) => fixAssignment(7, 'codex', i, 0.25).path);
    const wrong = draws.filter((p) => p === 'wrong').length / draws.length;
    expect(wrong).toBeGreaterThan(0.18);
    expect(wrong).toBeLessThan(0.32);
    expect(fixAssignment(7, 'codex', 3, 0.25)).toEqual(fixAssignment(7, 'codex', 3, 0.25));
    expect(Array.from({ length: 50 }, (_, i) => fixAssignment(7, 'codex', i, 0).path).every((p) => p === 'right')).toBe(true);
  });
});
