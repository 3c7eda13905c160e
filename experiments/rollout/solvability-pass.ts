/**
 * The rollout kind's solvability pre-pass (issue 30, item 4): before the first attempt, every task's
 * baseline and gold solution are scored the way attempts are scored — the task's evaluator, a fresh
 * sandbox on the run's scoring backend — and tasks proved broken are refused (`rollout.invalid_tasks:
 * refuse`, the default) or kept aside so their attempts are recorded as `task_invalid`
 * (`record`). Verdicts are cached under $SANDBENCH_HOME/rollout-tasks/solvability by a digest that
 * includes the scoring backend and the run's image, so a task set is checked once per environment.
 */
import { mkdirSync } from 'node:fs';
import type { Executor, RunContext, TrialContext } from '../../harness/contracts/executor.ts';
import { UserError } from '../../harness/errors.ts';
import { scoreCandidate } from './score-candidate.ts';
import type { RolloutSpec } from './rollout-spec.ts';
import type { TaskSet } from './task-contract.ts';
import { checkTasks, type ScoreProbe, type SolvabilityVerdict } from './tasks/solvability.ts';

export interface SolvabilityPassInput {
  run: RunContext;
  taskSet: TaskSet;
  options: RolloutSpec;
  scoringExecutor: Executor;
  /** Verdict cache root ($SANDBENCH_HOME/rollout-tasks); the check's scratch lives below it and is removed per task. */
  cacheDir: string;
}

/** Scores through the run's scoring executor exactly as an attempt's candidate is scored. */
function probeOn(input: SolvabilityPassInput): ScoreProbe {
  const executor = input.scoringExecutor;
  return async (task, candidate, scratchDir, label) => {
    mkdirSync(scratchDir, { recursive: true });
    const trialFor = (trialDir: string, workspace: string): TrialContext => {
      mkdirSync(trialDir, { recursive: true });
      const memoryMiB = executor.traits.launch === 'vm' ? input.options.vm_memory : null;
      return { run: input.run, trialId: `solvable-${task.id}-${label}`, baselineWorkspace: workspace, trialDir, timeoutMs: input.options.scoring_timeout, controls: { cpus: null, memoryMiB }, budget: null };
    };
    const scored = await scoreCandidate({ evaluator: task.evaluator, candidate, scoringExecutor: executor, scratchDir, trialFor });
    if (scored.trial) await executor.finishTrial(scored.trial);
    if (scored.failure) throw new Error(`solvability check of task ${task.id} (${label}): ${scored.failure.category}: ${scored.failure.note}`);
    return scored.score!;
  };
}

/** The refusal a spec author reads: every invalid task with its reasons, and the three ways out. */
export function invalidTasksMessage(setName: string, invalid: readonly SolvabilityVerdict[]): string {
  const lines = invalid.map((verdict) => `  ${verdict.task_id}: ${verdict.reasons.join('; ')}`);
  return [
    `rollout.tasks: ${invalid.length} task(s) of ${setName} are not solvable as written (checked before any attempt: the gold solution must pass FAIL_TO_PASS and PASS_TO_PASS, the baseline must fail FAIL_TO_PASS):`,
    ...lines,
    'Fix: correct the task (test ids, gold patch), leave it out with rollout.task_ids, or set rollout.invalid_tasks: record to run the rest and record its attempts as task_invalid.',
  ].join('\n');
}

/**
 * Run the pre-pass. Returns the invalid tasks' verdicts by task id (empty when all are solvable);
 * throws a UserError listing them under `refuse`.
 */
export async function proveTasksSolvable(input: SolvabilityPassInput): Promise<Map<string, SolvabilityVerdict>> {
  const environmentKey = JSON.stringify({ scoring_backend: input.options.scoring_backend, image: input.run.image.digest });
  const verdicts = await checkTasks(input.taskSet.tasks, { cacheDir: input.cacheDir, environmentKey, score: probeOn(input), log: input.run.log });
  const invalid = verdicts.filter((verdict) => !verdict.valid);
  if (invalid.length > 0 && input.options.invalid_tasks === 'refuse') throw new UserError(invalidTasksMessage(input.options.tasks, invalid));
  if (invalid.length === input.taskSet.tasks.length && invalid.length > 0) throw new UserError(`${invalidTasksMessage(input.options.tasks, invalid)}\n(no task of the set is solvable, so the run would measure nothing)`);
  return new Map(invalid.map((verdict) => [verdict.task_id, verdict]));
}
