/**
 * The reward of a continued attempt (issue 19, mode continue with task builtin-fix): after the
 * continuation judge, the workspace the continued agent left (minus the replay's meta directory) is
 * the candidate, scored by the built-in rollout task's own evaluator in a FRESH scoring sandbox on
 * the spec's one scoring backend — the rollout kind's scoring stage itself (score-candidate.ts).
 * Recorded per trial: `reward` (metric), the task, the seeded path, passed/failed tests, the
 * evaluator version and the scoring sandbox's time. An evaluator that cannot judge, or a scoring
 * sandbox that fails, fails the trial with its infrastructure category — never reward 0.
 */
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import type { CandidateFiles } from '../../../harness/contracts/executor.ts';
import type { ExperimentContext } from '../../../harness/contracts/experiment-kind.ts';
import type { ArmRef } from '../../../harness/journal/trial-record.ts';
import type { PlannedTrial } from '../../../harness/plan/plan.ts';
import type { Spec } from '../../../harness/spec/schema.ts';
import { runScratchDir } from '../../../harness/state-dir.ts';
import { extractCandidate } from '../../rollout/candidate-store.ts';
import { scoreCandidate } from '../../rollout/score-candidate.ts';
import type { RolloutTask } from '../../rollout/task-contract.ts';
import { loadBuiltinTaskSet } from '../../rollout/tasks/index.ts';
import { replaySection } from '../replay-plan.ts';
import { CONTINUE_META_DIR } from './continuation.ts';
import type { PrefixInput } from './replay-inputs.ts';
import type { ContinuationJudge } from './replay-only-trial.ts';
import type { ResourceHandle } from '../../../harness/run/cleanup-registry.ts';

/** The reward is measured in mode continue on builtin-fix trajectories. */
export function continueRewardWanted(spec: Spec): boolean {
  const replay = replaySection(spec);
  return replay.mode === 'continue' && replay.task === 'builtin-fix';
}

/** The scoring backend's arm, when this run scores continued attempts. */
export function rewardScoringArm(spec: Spec): ArmRef | null {
  return continueRewardWanted(spec) ? { backend: replaySection(spec).scoring_backend, variant: null } : null;
}

const taskSets = new Map<string, Map<string, RolloutTask>>();

/** Once per run, outside timing: the built-in task set (baselines cached with the rollout kind's). */
export async function prepareContinueReward(ctx: ExperimentContext): Promise<void> {
  if (!continueRewardWanted(ctx.spec) || taskSets.has(ctx.run.runId)) return;
  const set = await loadBuiltinTaskSet({ cacheDir: join(ctx.run.stateDir, 'rollout-tasks'), log: ctx.run.log });
  taskSets.set(ctx.run.runId, new Map(set.tasks.map((task) => [task.id, task])));
}

export function dropContinueReward(ctx: ExperimentContext): void {
  taskSets.delete(ctx.run.runId);
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** `judge` plus the reward of the attempt it judged; unchanged for trajectories without a rollout task. */
export function withReward(ctx: ExperimentContext, planned: PlannedTrial, input: PrefixInput, judge: ContinuationJudge | undefined): ContinuationJudge | undefined {
  const fix = input.entry.task.fix;
  const arm = rewardScoringArm(ctx.spec);
  if (!judge || !fix || !arm) return judge;
  return {
    ...judge,
    async judge(lines, running, candidates, report) {
      const inner = await judge.judge(lines, running, candidates, report);
      const task = taskSets.get(ctx.run.runId)?.get(fix.taskId);
      const facts: Record<string, unknown> = { reward_task: fix.taskId, reward_path: fix.path, scoring_backend: arm.backend };
      if (!task) return { ...inner, facts: { ...inner.facts, ...facts }, failure: { category: 'harness_error', note: `no built-in rollout task ${fix.taskId} was prepared for scoring` } };
      const scratch = join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'reward', planned.trial_id.replace(/[^A-Za-z0-9._-]/g, '_'));
      const scoringExecutor = ctx.executorFor(arm);
      // the replay's own files (prompt, history, trajectory) are not the agent's work
      const collected: CandidateFiles = { ...candidates, changed: candidates.changed.filter((path) => !under(path.replace(/ \(deleted\)$/, ''), CONTINUE_META_DIR)) };
      const killers: ResourceHandle[] = [];
      let scored: Awaited<ReturnType<typeof scoreCandidate>> | null = null;
      try {
        const candidate = await extractCandidate(collected);
        Object.assign(facts, { candidate_digest: candidate.digest, candidate_files_scored: candidate.files.map((f) => f.path), candidate_deleted: candidate.deleted });
        scored = await scoreCandidate({
          evaluator: task.evaluator,
          candidate,
          scoringExecutor,
          scratchDir: scratch,
          trialFor: (trialDir, workspace) => ({
            run: ctx.run, trialId: `${planned.trial_id}-score`, baselineWorkspace: workspace, trialDir, timeoutMs: replaySection(ctx.spec).scoring_timeout,
            controls: { cpus: ctx.spec.controls.cpus ?? null, memoryMiB: null }, budget: null,
          }),
          onKill: (listener) => killers.push(ctx.run.cleanup.register('process', `scoring ${planned.trial_id}`, async () => listener())),
        });
      } finally {
        for (const killer of killers) ctx.run.cleanup.forget(killer);
        if (scored?.trial) await scoringExecutor.finishTrial(scored.trial).catch(() => undefined);
        await rm(scratch, { recursive: true, force: true });
      }
      Object.assign(facts, { evaluator_version: task.evaluator.version, scoring: scored.scoring });
      const metrics = { ...inner.metrics, ...(scored.scoring ? { scoring_ms: scored.scoring.ms } : {}) };
      if (scored.failure || !scored.score) {
        const failure = scored.failure ?? { category: 'harness_error' as const, note: 'scoring returned no score' };
        return { ...inner, metrics, facts: { ...inner.facts, ...facts, replay_failure_category: 'evaluator' }, failure: { category: failure.category, note: failure.note } };
      }
      return {
        ...inner,
        metrics: { ...metrics, reward: scored.score.reward },
        facts: { ...inner.facts, ...facts, reward: scored.score.reward, reward_passed: scored.score.passed, reward_failed: scored.score.failed },
      };
    },
  };
}
