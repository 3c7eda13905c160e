/**
 * Test support: run a scripted path's shell turns on a copy of a task's baseline on the host (as
 * the built-in agent would in /workspace), take the candidate, and score it with the task's own
 * evaluator (staging + the scoring argv run on the host instead of a scoring sandbox).
 */
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import type { ModelScript } from '../../../services/model/index.ts';
import type { CandidateFiles, RolloutTask, TaskScore } from '../../../experiments/rollout/task-contract.ts';
import { diffCandidate } from '../../../experiments/rollout/tasks/candidate-diff.ts';

export const TOOL_ENV = { PYTHONDONTWRITEBYTECODE: '1', GIT_OPTIONAL_LOCKS: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };

export function shellTurns(script: ModelScript, taskId: string): string[] {
  const task = script.tasks.find((entry) => entry.id === taskId);
  if (!task) throw new Error(`script ${script.id} has no task ${taskId}`);
  return task.turns.flatMap((turn) => ('shell' in turn ? [turn.shell] : []));
}

export async function scoreCandidate(task: RolloutTask, candidate: CandidateFiles, scratch: string): Promise<TaskScore> {
  const scoring = join(scratch, 'scoring');
  await task.evaluator.stageScoringWorkspace(scoring, candidate);
  const [cmd, ...args] = task.evaluator.scoringArgv;
  const run = await execa(cmd!, args, { cwd: scoring, reject: false });
  return await task.evaluator.parseScore({ exitCode: run.exitCode ?? null, stdout: String(run.stdout), stderr: String(run.stderr) });
}

/** Content of every file below `dir` (but .git), by relative path. */
function snapshot(dir: string, rel = '', out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (path === '.git') continue;
    if (entry.isDirectory()) snapshot(dir, path, out);
    else out.set(path, createHash('sha256').update(readFileSync(join(dir, path))).digest('hex'));
  }
  return out;
}

function changedBetween(before: Map<string, string>, after: Map<string, string>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((path) => before.get(path) !== after.get(path)).sort();
}

export interface HostRun {
  candidate: CandidateFiles;
  score: TaskScore;
  work: string;
  /** Paths the last command that changed anything wrote, created or deleted (a write-losing substrate's loss). */
  lastWrite: string[];
}

/** Apply `commands` in a fresh copy of the baseline; return the candidate and its score. */
export async function applyAndScore(task: RolloutTask, commands: readonly string[], root: string): Promise<HostRun> {
  const scratch = mkdtempSync(join(root, `${task.id}-`));
  const work = join(scratch, 'workspace');
  cpSync(task.repoDir, work, { recursive: true });
  let state = snapshot(work);
  let lastWrite: string[] = [];
  for (const command of commands) {
    await execa('bash', ['-c', command], { cwd: work, env: TOOL_ENV, reject: false });
    const next = snapshot(work);
    const changed = changedBetween(state, next);
    if (changed.length > 0) lastWrite = changed;
    state = next;
  }
  const out = join(scratch, 'candidate');
  mkdirSync(out);
  const candidate = diffCandidate(task.repoDir, work, out);
  return { candidate, score: await scoreCandidate(task, candidate, scratch), work, lastWrite };
}
