/**
 * One rollout attempt as its tries (issue 31, items 4 and 6): each try gets its own child cgroup of
 * the cell's budget, so the kernel counts exactly that try's processes — the sandbox, its runtime
 * helpers and the scoring sandbox — and the try's CPU time and memory peak are read from it before
 * it is removed. A try that failed retriably is retried (retry-policy.ts) with the same task, path
 * and seed; faults are injected per try (fault-injection.ts). Each try is costed once, in its own
 * cgroup: the sum over tries is the attempt's cost, and the tries before the last are its retries'
 * cost, so nothing is counted twice. The harness's own CPU is the cell's (rollout-cell.ts), never
 * charged here.
 */
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import { AttemptCgroup } from '../../harness/controls/attempt-cgroup.ts';
import { loopTurns } from '../../harness/schedule/index.ts';
import type { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';
import type { AttemptResult } from './rollout-attempt.ts';
import { armSandboxKill, faultFor, type FaultPlan, type InjectedFault } from './fault-injection.ts';
import { runWithRetries, tryRouteId, type RetryPolicy } from './retry-policy.ts';

const GIB = 1024 ** 3;

/** What one try cost, from its own cgroup and the host clock. */
export interface TryCost {
  /** Stage → removal of everything the try made (AttemptStamps start → end). */
  wall_ms: number;
  /** The wait before this try (the worker holds its slot). */
  backoff_ms: number;
  /** CPU the kernel charged to the try's cgroup (null when no hierarchy counts it). */
  cpu_ms: number | null;
  /** The try cgroup's peak after scoring (sandbox and scoring sandbox). */
  memory_peak_bytes: number | null;
  /** memory_peak_bytes (GiB) × wall (s): the memory a worker holds reserved for the try. */
  gib_s: number | null;
}

export interface AttemptTry {
  try: number;
  /** The model route's attempt id of this try (the journal splits its traffic by it). */
  routeId: string;
  fault: InjectedFault | null;
  /** A sandbox kill that was armed: whether it landed before the sandbox exited (null: no kill armed). */
  faultFired: boolean | null;
  /** The try's category as the loop saw it (an OOM in its cgroup overrides the attempt's own). */
  category: FailureCategory | null;
  oomKills: number;
  result: AttemptResult;
  cost: TryCost;
}

export interface TryContext {
  tryIndex: number;
  routeId: string;
  fault: InjectedFault | null;
  cgroup: AttemptCgroup | null;
  cgroupError: string | null;
  /** Pass to runAttempt's onLaunched hook: arms this try's sandbox kill. */
  onLaunched(running: RunningTrial): void;
}

export interface AttemptTriesInput {
  policy: RetryPolicy;
  faults: FaultPlan | undefined;
  seed: number;
  attemptIndex: number;
  attemptId: string;
  budget: CgroupBudget;
  /** Cgroup name of a try (unique in the budget). */
  cgroupName(tryIndex: number): string;
  /** A cgroup the try's sandbox already runs in (a warm-pool claim's), used instead of a new one; undefined = a new one. */
  cgroupOf?(tryIndex: number): { cgroup: AttemptCgroup | null; error: string | null } | undefined;
  /** True once the run is stopping: no retry starts. */
  stopped(): boolean;
  runTry(context: TryContext): Promise<AttemptResult>;
}

function makeCgroup(budget: CgroupBudget, name: string): { cgroup: AttemptCgroup | null; error: string | null } {
  try {
    return { cgroup: AttemptCgroup.create(budget, name), error: null };
  } catch (error) {
    return { cgroup: null, error: `no attempt cgroup: ${(error as Error).message}` };
  }
}

export function tryCost(result: AttemptResult, backoffMs: number, cpuNs: number | null, peakBytes: number | null): TryCost {
  const wallMs = Number(result.stamps.end - result.stamps.start) / 1e6;
  return { wall_ms: wallMs, backoff_ms: backoffMs, cpu_ms: cpuNs === null ? null : cpuNs / 1e6, memory_peak_bytes: peakBytes, gib_s: peakBytes === null ? null : (peakBytes / GIB) * (wallMs / 1000) };
}

async function oneTry(input: AttemptTriesInput, tryIndex: number): Promise<AttemptTry> {
  // A burst admits hundreds of tries at once: their cgroup set-up takes turns with the loop's other work.
  await loopTurns.take();
  const fault = faultFor(input.faults, input.seed, input.attemptIndex, tryIndex);
  const routeId = tryRouteId(input.attemptId, tryIndex);
  const { cgroup, error } = input.cgroupOf?.(tryIndex) ?? makeCgroup(input.budget, input.cgroupName(tryIndex));
  const oomBefore = input.budget.oomKillCount();
  let kill: ReturnType<typeof armSandboxKill> | null = null;
  const onLaunched = (running: RunningTrial) => {
    if (fault === 'sandbox_kill') kill = armSandboxKill(running, input.faults!.kill_after_ms);
  };
  const result = await input.runTry({ tryIndex, routeId, fault, cgroup, cgroupError: error, onLaunched });
  const armed = kill as ReturnType<typeof armSandboxKill> | null;
  armed?.cancel();
  await loopTurns.take();
  // The try's own cgroup counts exactly its kills (v1 counts a kill only in the victim's cgroup); without one, the budget's over the try.
  const oomKills = cgroup ? cgroup.oomKillCount() : input.budget.oomKillCount() - oomBefore;
  const cost = tryCost(result, 0, cgroup?.cpuUsageNs() ?? null, cgroup?.peak().bytes ?? null);
  await cgroup?.destroy().catch((failure) => result.notes.push(`attempt cgroup: ${(failure as Error).message}`));
  if (fault) result.notes.push(`fault injected: ${fault}${armed ? (armed.fired() ? ' (fired)' : ' (not fired: the sandbox exited first)') : ''}`);
  return { try: tryIndex, routeId, fault, faultFired: armed ? armed.fired() : null, category: oomKills > 0 ? 'oom' : result.category, oomKills, result, cost };
}

/** Every try of one attempt, in order; the last is the attempt's outcome. */
export async function runAttemptTries(input: AttemptTriesInput): Promise<AttemptTry[]> {
  const { tries, backoffs } = await runWithRetries(input.policy, (tryIndex) => oneTry(input, tryIndex), { categoryOf: (attempt) => attempt.category, stopped: input.stopped });
  return tries.map((attempt, index) => ({ ...attempt, cost: { ...attempt.cost, backoff_ms: backoffs[index] ?? 0 } }));
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);
/** Σ of a try figure, or undefined when any try lacks it (a partial sum would undercount the attempt). */
const sumOf = (tries: readonly AttemptTry[], pick: (cost: TryCost) => number | null): number | undefined => {
  const values = tries.map((t) => pick(t.cost));
  return values.every((v): v is number => v !== null) ? sum(values) : undefined;
};

/**
 * An attempt's tries as record metrics (rollout-record.ts): the attempt's whole cost and the part
 * its retries took (every try but the last, plus the backoff before the last), each try once.
 */
export function triesMetrics(tries: readonly AttemptTry[]): Record<string, number> {
  const metrics: Record<string, number> = { tries: tries.length, retries: tries.length - 1 };
  const earlier = tries.slice(0, -1);
  const last = tries[tries.length - 1];
  const occupancy = (cost: TryCost) => cost.wall_ms + cost.backoff_ms;
  metrics.attempt_worker_ms = sum(tries.map((t) => occupancy(t.cost)));
  metrics.retry_worker_ms = sum(earlier.map((t) => occupancy(t.cost))) + (last?.cost.backoff_ms ?? 0);
  const figures: [string, (cost: TryCost) => number | null][] = [['cpu_ms', (c) => c.cpu_ms], ['gib_s', (c) => c.gib_s]];
  for (const [name, pick] of figures) {
    const all = sumOf(tries, pick);
    const retried = sumOf(earlier, pick);
    if (all !== undefined) metrics[`attempt_${name}`] = all;
    if (all !== undefined && retried !== undefined) metrics[`retry_${name}`] = retried;
  }
  metrics.faults_injected = tries.filter((t) => t.fault !== null).length;
  return metrics;
}

/** Each try as the record keeps it (facts.tries). */
export function triesFacts(tries: readonly AttemptTry[]): Record<string, unknown>[] {
  return tries.map((t) => ({ try: t.try, route_id: t.routeId, fault: t.fault, fault_fired: t.faultFired, category: t.category, oom_kills: t.oomKills, ...t.cost, notes: t.result.notes.slice(0, 3) }));
}
