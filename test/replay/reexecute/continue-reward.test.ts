/**
 * The reward of a continued attempt (issue 19): the workspace a continuation left is scored by the
 * built-in rollout task's evaluator in a fresh scoring sandbox (the real host executor here): the
 * right path is rewarded 1, the wrong path 0; a scoring stage that cannot judge (a candidate path
 * the evaluator refuses to stage, a scoring sandbox past its timeout) is an infrastructure failure
 * with its category, never reward 0. The replay's own meta directory is never part of the candidate.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CandidateFiles, RunContext } from '../../../harness/contracts/executor.ts';
import type { ExperimentContext } from '../../../harness/contracts/experiment-kind.ts';
import { CleanupRegistry } from '../../../harness/run/cleanup-registry.ts';
import { createHostExecutor } from '../../../executors/host.ts';
import { parseSpec } from '../../../experiments/registry.ts';
import { builtinFixTask } from '../../../experiments/replay/reexecute/builtin-fix-task.ts';
import { CONTINUE_META_DIR } from '../../../experiments/replay/reexecute/continuation.ts';
import { prepareContinueReward, withReward, dropContinueReward } from '../../../experiments/replay/reexecute/continue-reward.ts';
import type { PrefixInput } from '../../../experiments/replay/reexecute/replay-inputs.ts';
import type { ContinuationJudge, DriverReport } from '../../../experiments/replay/reexecute/replay-only-trial.ts';
import type { FixtureTask } from '../../../experiments/replay/fixture-task.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-continue-reward-'));
const cleanup = new CleanupRegistry('continue-reward-test');
const executor = createHostExecutor();
const ctxWith = (scoringTimeout: string): ExperimentContext => ({
  run: { runId: 'continue-reward-test', cleanup, log: () => undefined, stateDir: root, options: {} } as unknown as RunContext,
  spec: parseSpec({ name: 't', experiment: 'replay', arms: [{ backend: 'host' }], warmups: 0, trials: 1, seed: 1, timeout: '60s', replay: { mode: 'continue', task: 'builtin-fix', scoring_backend: 'host', scoring_timeout: scoringTimeout } }),
  bundleDir: root,
  executorFor: () => executor,
}) as unknown as ExperimentContext;
const ctx = ctxWith('60s');

beforeAll(async () => {
  await executor.prepare(ctx.run);
  await prepareContinueReward(ctx);
});
afterAll(async () => {
  dropContinueReward(ctx);
  await cleanup.releaseAll();
  rmSync(root, { recursive: true, force: true });
});

/** A workspace after prefix + continuation, as a host executor's collect would give it. */
function continued(task: FixtureTask, extra: string[] = []): CandidateFiles {
  const dir = mkdtempSync(join(root, 'ws-'));
  cpSync(task.fix!.sourceDir, dir, { recursive: true });
  const before = execFileSync('find', ['.', '-type', 'f'], { cwd: dir, encoding: 'utf8' });
  const commands = [...task.turns.slice(0, task.prefixTurns).map((t) => t.command), ...task.fix!.continuation.flatMap((t) => ('shell' in t ? [t.shell] : []))];
  for (const command of commands) execFileSync('/bin/bash', ['-c', command], { cwd: dir, env: { PATH: '/usr/bin:/bin', PYTHONDONTWRITEBYTECODE: '1' }, stdio: 'ignore' });
  mkdirSync(join(dir, CONTINUE_META_DIR), { recursive: true });
  writeFileSync(join(dir, CONTINUE_META_DIR, 'history.json'), '{}');
  const baseline = new Set(before.split('\n').filter(Boolean));
  const changed = execFileSync('find', ['.', '-type', 'f'], { cwd: dir, encoding: 'utf8' }).split('\n').filter(Boolean)
    .filter((p) => !baseline.has(p) || !readFileSync(join(task.fix!.sourceDir, p)).equals(readFileSync(join(dir, p))))
    .map((p) => p.slice(2));
  return { changed: [...changed, ...extra], read: async (p) => { try { return readFileSync(join(dir, p)); } catch { return null; } }, facts: {} };
}

const inner: ContinuationJudge = { expected: null, judge: async () => ({ validity: { continuation_scripted_requests: 'pass' }, metrics: { continuation_ms: 1 }, facts: {}, notes: [] }) };
const report: DriverReport = { calls: [], ready: [], results: [], problems: [] };
const planned = (id: string) => ({ trial_id: id, block: 0, position: 0, warmup: false, arm: { backend: 'host', variant: 'codex' }, seed: 1 });
const inputOf = (task: FixtureTask) => ({ entry: { agent: 'codex', index: task.index, task }, calls: [], unsupported: [], callsTarget: '' }) as unknown as PrefixInput;
/** A trajectory index whose seeded path is `path` (seed fixed). */
const taskOn = (path: 'right' | 'wrong') => {
  for (let i = 0; ; i++) {
    const task = builtinFixTask('codex', i, 20261006, 0.5);
    if (task.fix!.path === path) return task;
  }
};

describe('reward of a continued attempt', () => {
  it('right path: reward 1; wrong path: reward 0, both scored on the scoring backend without the replay meta dir', async () => {
    for (const [path, reward] of [['right', 1], ['wrong', 0]] as const) {
      const task = taskOn(path);
      const judged = await withReward(ctx, planned(`t-${path}`), inputOf(task), inner)!.judge([], {} as never, continued(task), report);
      expect(judged.failure, path).toBeUndefined();
      expect(judged.metrics.reward, path).toBe(reward);
      expect(judged.facts.reward_path).toBe(path);
      expect(judged.facts.evaluator_version).toMatch(/^builtin-unittest\/1\+/);
      expect((judged.facts.candidate_files_scored as string[]).some((p) => p.startsWith(CONTINUE_META_DIR))).toBe(false);
      expect(judged.metrics.scoring_ms).toBeGreaterThan(0);
    }
  });

  it('a candidate the evaluator cannot stage is recording_failed, not reward 0', async () => {
    const task = taskOn('right');
    const candidates = continued(task, ['../outside.py']);
    // the escaping path names a real file beside the workspace: extraction copies it, the evaluator refuses to stage it
    writeFileSync(join(root, 'outside.py'), 'print("outside")\n');
    const judged = await withReward(ctx, planned('t-escape'), inputOf(task), inner)!.judge([], {} as never, candidates, report);
    expect(judged.failure?.category).toBe('recording_failed');
    expect(judged.metrics.reward).toBeUndefined();
    expect(judged.facts.replay_failure_category).toBe('evaluator');
  });

  it('a scoring sandbox past its timeout is a timeout, not reward 0', async () => {
    const task = taskOn('right');
    const judged = await withReward(ctxWith('1ms'), planned('t-slow'), inputOf(task), inner)!.judge([], {} as never, continued(task), report);
    expect(judged.failure?.category).toBe('timeout');
    expect(judged.metrics.reward).toBeUndefined();
  });

  it('trajectories without a rollout task keep the judge as it is', () => {
    expect(withReward(ctx, planned('t'), { entry: { task: { fix: undefined } } } as unknown as PrefixInput, inner)).toBe(inner);
  });
});
