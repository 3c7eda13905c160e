/**
 * The `builtin-fix` synthetic task (issue 19): trajectories on a built-in rollout task (the rollout
 * kind's data/rollout-tasks/builtin/<task>/repo, scored by that task's own evaluator), so a
 * continued attempt has a real reward. The prefix is the task's scripted right path up to its first
 * write (inspect, then part of the fix) plus one inherently fresh `date` call; the continuation is
 * the rest of the right path — or, for a seeded fraction of trajectories, the task's wrong path from
 * the same branch point (data/model-scripts/rollout-builtin.yaml), so reward is not trivially 1.
 * Only tasks whose right path makes two or more writes qualify (the prefix must leave the fix
 * unfinished): csv-quoting, lru-cache, config-defaults.
 *
 * Recorded observations are what the prefix commands print when run once here in a copy of the
 * baseline (cat and heredoc writes: deterministic bytes); the ground-truth effects are the files
 * that run changed. The trajectory's recorded future action is the first continuation turn.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { seedFromString } from '../../../harness/plan/prng.ts';
import { loadModelScript } from '../../../services/model/index.ts';
import type { ScriptTurn } from '../../../services/model/script.ts';
import { BUILTIN_SCRIPT, BUILTIN_TASKS_DIR, readBuiltinTasks } from '../../rollout/tasks/index.ts';
import type { AttemptPath } from '../../rollout/task-contract.ts';
import { fixtureTask, isoAt, type ExpectedEffects, type FixtureTask, type FixtureTurn } from '../fixture-task.ts';

/** Built-in tasks whose right path writes at least twice before its test run. */
export const BUILTIN_FIX_TASKS = ['csv-quoting', 'lru-cache', 'config-defaults'] as const;
/** Shell turns of the right path kept in the prefix: the inspection and the first write. */
const PATH_TURNS_IN_PREFIX = 2;
/** How many calls a builtin-fix prefix holds (the two path turns and the fresh call; the cut is after it). */
export const BUILTIN_FIX_PREFIX_CALLS = PATH_TURNS_IN_PREFIX + 1;
export const DEFAULT_WRONG_FRACTION = 0.25;

/** What a builtin-fix trajectory adds to its FixtureTask. */
export interface BuiltinFix {
  taskId: string;
  path: AttemptPath;
  /** The task's baseline files (its repo/ directory, copied into every workspace). */
  sourceDir: string;
  /** Script turns the model service answers after the prefix (the rest of the chosen path). */
  continuation: ScriptTurn[];
}

const shellOf = (turn: ScriptTurn | undefined) => (turn && 'shell' in turn ? turn.shell : null);

interface PathTurns {
  prefix: string[];
  right: ScriptTurn[];
  wrong: ScriptTurn[];
}

const pathCache = new Map<string, PathTurns>();

/** Prefix and both continuations of one built-in task, from the rollout kind's own script. */
export function fixPaths(taskId: string): PathTurns {
  const cached = pathCache.get(taskId);
  if (cached) return cached;
  const script = loadModelScript(BUILTIN_SCRIPT);
  const right = script.tasks.find((t) => t.id === taskId)?.turns;
  const wrong = script.tasks.find((t) => t.id === `${taskId}.wrong`)?.turns;
  if (!right || !wrong) throw new Error(`${BUILTIN_SCRIPT}: no right and wrong path for ${taskId}`);
  const prefix = right.slice(0, PATH_TURNS_IN_PREFIX).map(shellOf);
  if (prefix.some((c) => c === null) || shellOf(wrong[0]) !== prefix[0]) throw new Error(`${BUILTIN_SCRIPT}: ${taskId} does not open with the same inspection and a write on both paths`);
  // the wrong path forks where it first differs from the right one (at the latest after the prefix)
  let fork = 0;
  while (fork < PATH_TURNS_IN_PREFIX && JSON.stringify(wrong[fork]) === JSON.stringify(right[fork])) fork++;
  const paths = { prefix: prefix as string[], right: right.slice(PATH_TURNS_IN_PREFIX), wrong: wrong.slice(fork) };
  pathCache.set(taskId, paths);
  return paths;
}

/** Seeded: which task and path trajectory (agent, index) takes. */
export function fixAssignment(seed: number, agent: string, index: number, wrongFraction: number): { taskId: string; path: AttemptPath } {
  const draw = seedFromString(`replay-builtin-fix:${seed}:${agent}:${index}`) / 0x80000000;
  return { taskId: BUILTIN_FIX_TASKS[index % BUILTIN_FIX_TASKS.length]!, path: draw < wrongFraction ? 'wrong' : 'right' };
}

function filesUnder(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path), readFileSync(path));
    }
  };
  walk(root);
  return files;
}

const recorded = new Map<string, { observations: string[]; effects: ExpectedEffects }>();

/** Run the prefix's commands once in a copy of the baseline: their output and the files they changed. */
function recordPrefix(taskId: string, sourceDir: string, commands: readonly string[]): { observations: string[]; effects: ExpectedEffects } {
  const cached = recorded.get(taskId);
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), `sandbench-fix-${taskId}-`));
  try {
    cpSync(sourceDir, dir, { recursive: true });
    const before = filesUnder(dir);
    const observations = commands.map((command) =>
      execFileSync('/bin/bash', ['-c', `${command} 2>&1`], { cwd: dir, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: dir, PYTHONDONTWRITEBYTECODE: '1' }, encoding: 'utf8' }),
    );
    const files: Record<string, string> = {};
    for (const [path, bytes] of filesUnder(dir)) if (!before.get(path)?.equals(bytes)) files[path] = bytes.toString('utf8');
    const deleted = [...before.keys()].filter((path) => !filesUnder(dir).has(path));
    if (deleted.length > 0) throw new Error(`builtin-fix ${taskId}: the prefix deletes ${deleted.join(', ')}; the ground truth holds writes only`);
    const result = { observations, effects: { files, opaqueDirs: [] } };
    recorded.set(taskId, result);
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function builtinFixTask(agent: string, index: number, seed: number, wrongFraction = DEFAULT_WRONG_FRACTION): FixtureTask {
  const base = fixtureTask(index, seed);
  const { taskId, path } = fixAssignment(seed, agent, index, wrongFraction);
  const def = readBuiltinTasks(BUILTIN_TASKS_DIR).find((d) => d.id === taskId);
  if (!def) throw new Error(`built-in rollout task ${taskId} is missing from ${BUILTIN_TASKS_DIR}`);
  const paths = fixPaths(taskId);
  const { observations, effects } = recordPrefix(taskId, def.sourceDir, paths.prefix);
  const continuation = path === 'right' ? paths.right : paths.wrong;
  const turn = (k: number, command: string, observation: string, fresh = false): FixtureTurn => ({ text: `fixture-text-${index}-${k}`, command, observation, exitCode: 0, ...(fresh ? { fresh: true } : {}) });
  const turns: FixtureTurn[] = [
    ...paths.prefix.map((command, k) => turn(k, command, observations[k]!)),
    turn(paths.prefix.length, 'date -u +%Y-%m-%dT%H:%M:%S.%NZ', `${isoAt(base, 20).replace('Z', '000000Z')}\n`, true),
    // the recorded future action: the first continuation turn (never part of a prefix)
    turn(paths.prefix.length + 1, shellOf(continuation[0]) ?? 'true', ''),
  ];
  const fix: BuiltinFix = { taskId, path, sourceDir: def.sourceDir, continuation };
  return { ...base, userText: def.prompt, turns, prefixTurns: paths.prefix.length + 1, profile: 'builtin-fix', effects, fix };
}
