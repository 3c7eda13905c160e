/**
 * Fault injection at a set rate (issue 31, item 4), a spec control recorded with every try: a
 * sandbox killed from outside mid-attempt (SIGKILL to its launched process groups, as an OOM killer
 * or a node drain would) and a model service that fails mid-attempt (the scripted service answers
 * the attempt's second request with a 503). Which try gets which fault is a seeded draw of (seed,
 * attempt index, try index) alone, so R=0 and R=2 runs of one seed inject the same faults into
 * every first try, and a retry draws afresh, as a real retry meets the infrastructure afresh.
 */
import { z } from 'zod';
import type { RunningTrial, TaskCommand } from '../../harness/contracts/executor.ts';
import { seedFromString } from '../../harness/plan/prng.ts';
import type { ModelScript } from '../../services/model/index.ts';

type ScriptTask = ModelScript['tasks'][number];
type ScriptTurn = ScriptTask['turns'][number];

export const FaultsSchema = z
  .object({
    /** Fraction of tries whose sandbox is killed from outside `kill_after_ms` after launch. */
    sandbox_kill: z.number().min(0).max(1).default(0),
    /** When the kill lands, after launch (a try that ends sooner is not killed: recorded as not fired). */
    kill_after_ms: z.number().nonnegative().max(3_600_000).default(1000),
    /** Fraction of tries whose model service fails (HTTP 503) on the attempt's second request. */
    model_error: z.number().min(0).max(1).default(0),
  })
  .strict()
  .refine((faults) => faults.sandbox_kill + faults.model_error <= 1, { message: 'sandbox_kill + model_error must be at most 1 (a try gets at most one fault); lower one of them' });
export type FaultPlan = z.output<typeof FaultsSchema>;

export type InjectedFault = 'sandbox_kill' | 'model_error';

/** Suffix of the script task that fails the attempt's second request (its first turn is the original's). */
export const MODEL_ERROR_SUFFIX = '.fault-model-error';

/** The fault a try gets: one uniform draw per (seed, attempt, try), split by the two rates. */
export function faultFor(plan: FaultPlan | undefined, seed: number, attemptIndex: number, tryIndex: number): InjectedFault | null {
  if (!plan || plan.sandbox_kill + plan.model_error === 0) return null;
  const draw = seedFromString(`rollout-fault:${seed}:${attemptIndex}:${tryIndex}`) / 0x80000000;
  if (draw < plan.sandbox_kill) return 'sandbox_kill';
  if (draw < plan.sandbox_kill + plan.model_error) return 'model_error';
  return null;
}

const MODEL_ERROR_TURN: ScriptTurn = { fail: 503, message: 'injected by sandbench fault injection (rollout.faults.model_error)', retry: false };

/** The failing twin of a script task: its first turn, then a 503 (a task whose first turn is final fails at once). */
function failingTwin(task: ScriptTask): ScriptTask {
  const first = task.turns[0]!;
  const turns: ScriptTurn[] = 'shell' in first ? [first, MODEL_ERROR_TURN] : [MODEL_ERROR_TURN];
  const { prompt_contains: _unused, ...rest } = task;
  return { ...rest, id: `${task.id}${MODEL_ERROR_SUFFIX}`, turns };
}

/** The run's script with a failing twin of every task (only when model errors are injected). */
export function withModelErrorTasks(script: ModelScript, plan: FaultPlan | undefined): ModelScript {
  if (!plan || plan.model_error === 0) return script;
  const ids = new Set(script.tasks.map((task) => task.id));
  const twins = script.tasks.filter((task) => !task.id.endsWith(MODEL_ERROR_SUFFIX)).map(failingTwin).filter((task) => !ids.has(task.id));
  return { ...script, tasks: [...script.tasks, ...twins] };
}

/**
 * A try's model route: `/t/<script task>/a/<route id>`. A model-error try is sent to the failing
 * twin; every try has its own route id, so the journal splits each try's traffic.
 */
export function tryCommand(command: TaskCommand, routeId: string, fault: InjectedFault | null): TaskCommand {
  const route = command.env.SANDBENCH_MODEL_ROUTE;
  if (route === undefined) return command;
  const match = /^\/t\/([^/]+)\/a\/[^/]+$/.exec(route);
  if (!match) throw new Error(`fault injection: model route "${route}" is not /t/<task>/a/<attempt>`);
  const task = fault === 'model_error' ? `${match[1]}${encodeURIComponent(MODEL_ERROR_SUFFIX)}` : match[1];
  return { ...command, env: { ...command.env, SANDBENCH_MODEL_ROUTE: `/t/${task}/a/${encodeURIComponent(routeId)}` } };
}

export interface ArmedKill {
  /** Whether the kill landed while the sandbox still ran. */
  fired(): boolean;
  cancel(): void;
}

/** SIGKILL the sandbox's launched process groups `afterMs` after launch, unless it exited first. */
export function armSandboxKill(running: RunningTrial, afterMs: number): ArmedKill {
  let fired = false;
  let exited = false;
  void running.exit.then(() => (exited = true), () => (exited = true));
  const timer = setTimeout(() => {
    if (exited) return;
    for (const pid of running.rootPids()) {
      try {
        process.kill(-pid, 'SIGKILL');
        fired = true;
      } catch {
        // the group is already gone
      }
    }
  }, afterMs);
  return { fired: () => fired, cancel: () => clearTimeout(timer) };
}
