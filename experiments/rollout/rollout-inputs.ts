/**
 * What a rollout-shaped kind prepares once per run, before any cell: the task set (loaded, checked
 * against the task image, proved solvable), one merged model script, the agent layers and the
 * support files every sandbox gets, and the plan and journal state a resumed run continues from.
 * The rollout and rollout-step kinds both start here, so a task source, a grader or a pre-pass rule
 * reaches both alike.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import { UserError } from '../../harness/errors.ts';
import { readJournal } from '../../harness/journal/journal.ts';
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { specArms, type Plan } from '../../harness/plan/plan.ts';
import { PROJECT_ROOT, runScratchDir } from '../../harness/state-dir.ts';
import { MODEL_SCRIPT_SCHEMA, loadModelScript, parseModelScript, type ModelScript } from '../../services/model/index.ts';
import { AGENT_ENTRY_FILES } from '../agent/agent-kind.ts';
import { ensureLayer, type AgentLayer } from '../agent/layers.ts';
import { parseRolloutArm } from './rollout-arms.ts';
import type { RolloutSpec } from './rollout-spec.ts';
import { proveTasksSolvable } from './solvability-pass.ts';
import type { TaskSet } from './task-contract.ts';
import type { SolvabilityVerdict } from './tasks/solvability.ts';
import type { GraderChoice } from './tasks/swebench-evaluator.ts';
import { loadTaskSet } from './tasks/index.ts';

export const ROLLOUT_ENTRY_SCRIPT = join(PROJECT_ROOT, 'experiments', 'rollout', 'run-rollout-agent.sh');
export const BUILTIN_AGENT_SCRIPT = join(PROJECT_ROOT, 'experiments', 'rollout', 'agent', 'agent.py');

export interface TaskLoadOptions {
  cacheDir: string;
  taskIds?: readonly string[];
  grader?: GraderChoice;
  /** The run's task image's Debian packages (Harbor tasks check their Dockerfile's against them). */
  imagePackages?: readonly string[];
  log: (line: string) => void;
  /** The spec section named in errors (rollout, rollout_step). */
  section?: string;
}

export async function defaultLoadTasks(name: string, options: TaskLoadOptions): Promise<TaskSet> {
  const path = name.endsWith('.jsonl') && !isAbsolute(name) ? join(PROJECT_ROOT, name) : name;
  const set = await loadTaskSet(path, { cacheDir: options.cacheDir, log: options.log, ...(options.grader ? { grader: options.grader } : {}), ...(options.imagePackages ? { imagePackages: options.imagePackages } : {}) });
  if (!options.taskIds) return set;
  const chosen = options.taskIds.map((id) => {
    const task = set.tasks.find((t) => t.id === id);
    if (!task) throw new UserError(`${options.section ?? 'rollout'}.task_ids: task "${id}" is not in task set ${set.id} (it has ${set.tasks.map((t) => t.id).join(', ')})`);
    return task;
  });
  return { id: set.id, tasks: chosen };
}

/** One model script for the run's service: every task's script tasks, merged (ids must not collide). */
export function mergeScripts(taskSet: TaskSet): { script: ModelScript; ids: string[] } {
  const paths = [...new Set(taskSet.tasks.map((task) => task.scriptPath))];
  const scripts = paths.map((path) => loadModelScript(path));
  const first = scripts[0]!;
  const script = parseModelScript(
    { schema: MODEL_SCRIPT_SCHEMA, id: `rollout-${taskSet.id}`, models: first.models, shell_tools: first.shell_tools, side_reply: first.side_reply, tasks: scripts.flatMap((s) => s.tasks) },
    `task set ${taskSet.id} (merged from ${paths.join(', ')})`,
  );
  return { script, ids: scripts.map((s) => s.id) };
}

export function writeSupport(dir: string, agentScript: string): { dir: string; key: string } {
  mkdirSync(dir, { recursive: true });
  const files: [string, string][] = [
    [ROLLOUT_ENTRY_SCRIPT, 'run-rollout-agent.sh'],
    ...Object.entries(AGENT_ENTRY_FILES).map(([name, source]): [string, string] => [source, name]),
    [agentScript, 'agent.py'],
  ];
  const hash = createHash('sha256');
  for (const [source, name] of files) {
    copyFileSync(source, join(dir, name));
    hash.update(name).update(readFileSync(source));
  }
  chmodSync(join(dir, 'run-rollout-agent.sh'), 0o755);
  return { dir, key: `rollout-support-${hash.digest('hex').slice(0, 16)}` };
}


export interface RolloutInputsRequest {
  ctx: ExperimentContext;
  /** The spec section, named in errors (rollout, rollout_step). */
  section: string;
  /** The attempt options the pre-pass scores with (tasks, grader, invalid_tasks, scoring_backend...). */
  options: RolloutSpec;
  scoringArm: ArmRef;
  agentScript: string;
  loadTasks?(name: string, options: TaskLoadOptions): Promise<TaskSet>;
}

export interface RolloutInputs {
  taskSet: TaskSet;
  /** Tasks the pre-pass proved unsolvable (kept only under `invalid_tasks: record`): their attempts are task_invalid. */
  invalidTasks: Map<string, SolvabilityVerdict>;
  script: ModelScript;
  scriptIds: string[];
  support: { dir: string; key: string };
  layers: Map<string, AgentLayer>;
  plan: Plan;
  /** Trials already journaled (a resumed run skips them). */
  done: Set<string>;
}

export async function prepareRolloutInputs(request: RolloutInputsRequest): Promise<RolloutInputs> {
  const { ctx, section, options } = request;
  const arms = specArms(ctx.spec).map((arm, index) => parseRolloutArm(arm, index));
  if (arms.some((arm) => arm.cli === null) && !existsSync(request.agentScript)) throw new UserError(`${section}: the built-in agent ${request.agentScript} is missing (experiments/rollout/agent/agent.py ships with sandbench)`);
  const cacheDir = join(ctx.run.stateDir, 'rollout-tasks');
  const taskSet = await (request.loadTasks ?? defaultLoadTasks)(options.tasks, { cacheDir, grader: options.grader, imagePackages: ctx.run.image.inputs.packages, ...(options.task_ids ? { taskIds: options.task_ids } : {}), log: ctx.run.log, section });
  if (taskSet.tasks.length === 0) throw new UserError(`${section}.tasks: task set ${options.tasks} has no task`);
  // Before any attempt scores: a broken task must not pass for a weak agent.
  const invalidTasks = await proveTasksSolvable({ run: ctx.run, taskSet, options, scoringExecutor: ctx.executorFor(request.scoringArm), cacheDir });
  const { script, ids } = mergeScripts(taskSet);
  const layers = new Map<string, AgentLayer>();
  for (const arm of arms) if (arm.cli && !layers.has(arm.cli.name)) layers.set(arm.cli.name, await ensureLayer(ctx.run.stateDir, arm.cli, ctx.run.log));
  const support = writeSupport(join(runScratchDir(ctx.run.stateDir, ctx.run.runId), 'rollout-support'), request.agentScript);
  const plan = JSON.parse(readFileSync(join(ctx.bundleDir, BUNDLE_FILES.plan), 'utf8')) as Plan;
  const done = new Set(readJournal(join(ctx.bundleDir, BUNDLE_FILES.journal)).records.map((r) => r.trial_id));
  return { taskSet, invalidTasks, script, scriptIds: ids, support, layers, plan, done };
}

/** The kind's agent arms plus its one scoring backend, prepared once and shared by every arm. */
export function withScoringArm(arms: ArmRef[], scoring: ArmRef): ArmRef[] {
  return arms.some((arm) => armLabel(arm) === armLabel(scoring)) ? arms : [...arms, scoring];
}
