/**
 * One cell run: the cell's attempts on a pool of C workers under the cell's arrival mode (closed
 * loop: each worker takes the next attempt as soon as its previous one ends; or bursts, staggered or
 * Poisson arrivals) and admission cap on starts (harness/schedule; a start ends at the sandbox's
 * first line, attempt-start.ts) inside ONE fresh shared budget (cgroup: CPUs, memory, zero swap),
 * against a model service of the cell's capacity (its own process, so the harness's event loop
 * cannot stretch the controlled service time; its journal appends to the bundle's). Measured
 * around the loop: the budget's memory peak, the harness's CPU (process.cpuUsage plus its launcher
 * co-process's own utime + stime) and RSS, the
 * baselines' digests before and after (never modified), the budget's OOM kills per attempt; per
 * attempt, the peak of the attempt's own child cgroup (its memory, whatever the backend).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_MOUNT_ROOT, type Executor, type RunContext, type RunningTrial, type TaskCommand } from '../../harness/contracts/executor.ts';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { PEAK_SAMPLE_INTERVAL_MS, startPeakSampler, type PeakReport } from '../../harness/controls/memory-sampler.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import { meterHelperCpu } from '../../executors/launch/helper-cpu.ts';
import { startModelServiceProcess, type ModelScript } from '../../services/model/index.ts';
import { readCellModelTraffic } from './cell-model-traffic.ts';
import type { AgentLayer } from '../agent/layers.ts';
import { LAYER_TARGET } from '../agent/agent-kind.ts';
import { runAttempt, type AttemptResult } from './rollout-attempt.ts';
import { runSchedule, type Arrival, type JobTiming, type Occupancy, type StartSignal } from '../../harness/schedule/index.ts';
import { attemptSchedule, startFailureCategory, watchStart, type AttemptSchedule } from './attempt-start.ts';
import { runAttemptTries, type AttemptTry } from './attempt-tries.ts';
import { tryCommand } from './fault-injection.ts';
import { ScratchReaper } from './scratch-reaper.ts';
import type { RewardCache } from './reward-cache.ts';
import { BUILTIN_AGENT, type RolloutArm } from './rollout-arms.ts';
import { attemptPhases, attemptTraffic, busySlotMs, modelSpanMs, type AttemptModelTraffic, type AttemptPhases } from './rollout-phases.ts';
import type { ModelCapacity, RolloutSpec } from './rollout-spec.ts';
import type { AttemptPath, RolloutTask } from './task-contract.ts';

export const SUPPORT_TARGET = `${SANDBOX_MOUNT_ROOT}/rollout`;

export interface CellAttempt {
  trialId: string;
  /** Index k of the attempt in its cell: attempt k is the same task and path in every cell. */
  index: number;
  attemptId: string;
  task: RolloutTask;
  path: AttemptPath;
}

export interface CellInput {
  run: RunContext;
  bundleDir: string;
  /** Label unique within the run (cgroup name, scratch dir). */
  cellRun: string;
  scratchDir: string;
  backend: string;
  arm: RolloutArm;
  executor: Executor;
  scoringExecutor: Executor;
  concurrency: number;
  capacity: ModelCapacity;
  /** When the attempts arrive (default: the closed loop), and most starts in flight at once (default null: none). */
  arrival?: Arrival;
  admissionCap?: number | null;
  /** Seed of a poisson arrival's draws (from the run seed and the cell run). */
  scheduleSeed?: number;
  attempts: CellAttempt[];
  script: ModelScript;
  journalPath: string;
  support: { dir: string; key: string };
  layer: AgentLayer | null;
  options: RolloutSpec;
  timeoutMs: number;
  /** Test hook (fault injection): each attempt's agent sandbox right after launch. */
  onLaunched?: (attempt: CellAttempt, running: RunningTrial) => void;
  /** Reward dedup (reward-cache.ts): the cache this cell's attempts score through; absent = none. */
  rewardCache?: RewardCache | null;
  /** The spec's seed: which tries get an injected fault (fault-injection.ts). */
  seed?: number;
}

export interface CellAttemptOutcome {
  attempt: CellAttempt;
  result: AttemptResult;
  category: FailureCategory | null;
  notes: string[];
  traffic: AttemptModelTraffic;
  phases: AttemptPhases;
  oomKillsDuring: number;
  worker: number;
  /** Arrival, waits, start latency and whether the start failed (attempt-start.ts); runCell always fills it. */
  schedule?: AttemptSchedule;
  /** Every try of the attempt (attempt-tries.ts), the last being its outcome; absent where a caller ran one try without the policy. */
  tries?: AttemptTry[];
}

export interface CellResult {
  outcomes: CellAttemptOutcome[];
  wallMs: number;
  tStartNs: bigint;
  peak: PeakReport | null;
  budgetError: string | null;
  /** The harness's CPU over the loop: its own process (process.cpuUsage: every thread) plus its launcher co-process (utime + stime). */
  harnessCpuMs: number;
  harnessCpuUserMs: number;
  harnessCpuSystemMs: number;
  /** The launcher co-process's share of harnessCpuMs (its own time; the commands it ran are the rollouts'). */
  harnessHelperCpuMs: number;
  harnessRssPeakBytes: number;
  /**
   * Which rollout cell of this process it was (0: the first). The first cells carry V8's compilation
   * of the whole per-attempt path, which goes on for a few hundred rollouts, so their harness CPU is
   * a warm-up figure (docs/harness-scale.md, fifth round).
   */
  processCellIndex: number;
  /** busy slot-time ÷ (slots × model span): first request → last reply of the cell. */
  utilization: number | null;
  /** busy slot-time ÷ (slots × cell wall). */
  utilizationWall: number | null;
  modelSpanMs: number | null;
  busySlotMs: number;
  baselineUnchanged: boolean;
  serviceError: string | null;
  loadAverage: [number, number];
  /** Starts in flight over the cell: peak and time-weighted mean (the admission gate's record); runCell always fills it. */
  starts?: Occupancy;
}

const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

/**
 * The samplers run in the harness, so their wake-ups are harness CPU for as long as the cell runs
 * (≈ 0.06-0.1 ms each here). A fresh budget whose kernel tracks its own peak (v1
 * max_usage_in_bytes, v2 memory.peak) needs the 50 ms sampler only as a fallback: the reported
 * peak is max(sampled, kernel). The harness's RSS grows slowly (heap), so 1 s is enough.
 */
const KERNEL_PEAK_SAMPLE_MS = 1000;
const HARNESS_RSS_SAMPLE_MS = 1000;
/** Rollout cells this process has started, of either rollout kind (CellResult.processCellIndex). */
let cellsStarted = 0;
export const nextProcessCellIndex = (): number => cellsStarted++;
function budgetSampleMs(budget: CgroupBudget): number {
  return budget.kernelPeakBytes() !== null ? KERNEL_PEAK_SAMPLE_MS : PEAK_SAMPLE_INTERVAL_MS;
}
const loadavg = (): [number, number] => {
  const [one, five] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
  return [one ?? NaN, five ?? NaN];
};

export function commandFor(input: CellInput, attempt: CellAttempt, service: { socketPath: string; port: number | null }, agentTmp: string): TaskCommand {
  const scriptTask = attempt.task.scriptTaskId(attempt.path);
  return {
    // the oracle is the built-in agent driven down the gold path
    argv: ['/bin/sh', `${SUPPORT_TARGET}/run-rollout-agent.sh`, input.arm.oracle ? BUILTIN_AGENT : input.arm.agentName, attempt.task.prompt],
    env: {
      SANDBENCH_MODEL_ROUTE: `/t/${encodeURIComponent(scriptTask)}/a/${attempt.attemptId}`,
      SANDBENCH_AGENT_TMP: agentTmp,
      SANDBENCH_ROLLOUT_MAX_TURNS: String(input.options.max_turns),
      SANDBENCH_ROLLOUT_TOOL_TIMEOUT: String(Math.ceil(input.options.tool_timeout / 1000)),
      PYTHONDONTWRITEBYTECODE: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      ...(input.layer ? { SANDBENCH_AGENT_LAYER: LAYER_TARGET } : {}),
    },
    stdin: 'none',
    mounts: [
      { source: input.support.dir, target: SUPPORT_TARGET, contentKey: input.support.key },
      ...(input.layer ? [{ source: input.layer.dir, target: LAYER_TARGET, contentKey: input.layer.contentKey }] : []),
    ],
    service: { name: 'model', socketPath: service.socketPath, ...(service.port ? { tcp: { host: '127.0.0.1', port: service.port } } : {}) },
  };
}

/** An attempt's category after the facts only the cell knows: OOM kills in the budget while it ran, model-service failures in the journal, a touched baseline. */
export function finalCategory(result: AttemptResult, traffic: AttemptModelTraffic, oomKillsDuring: number, baselineUnchanged: boolean): { category: FailureCategory | null; note: string | null } {
  if (!baselineUnchanged) return { category: 'isolation_refused', note: 'a task baseline changed during the cell: no attempt of it can be trusted' };
  if (oomKillsDuring > 0) return { category: 'oom', note: `the budget recorded ${oomKillsDuring} OOM kill(s) while this rollout ran` };
  const upstream = (traffic.failures.injected_error ?? 0) + (traffic.failures.service_closed ?? 0) + traffic.http5xx;
  if (upstream > 0 && result.category !== 'killed_externally') return { category: 'upstream_failed', note: `the model service failed ${upstream} request(s) of this rollout` };
  return { category: result.category, note: null };
}

export async function runCell(input: CellInput): Promise<CellResult> {
  const tasks = [...new Map(input.attempts.map((a) => [a.task.id, a.task])).values()];
  const digestsBefore = tasks.map((task) => treeDigest(task.repoDir));
  const service = await startModelServiceProcess({
    script: input.script,
    socketDir: input.scratchDir,
    port: 0,
    slots: input.capacity.slots,
    baseMs: input.capacity.base_ms,
    perTokenMs: input.capacity.per_token_ms,
    journalPath: input.journalPath,
    log: input.run.log,
  });
  const serviceHandle = input.run.cleanup.register('process', `model service ${service.socketPath}`, () => service.close());
  let budget: CgroupBudget | null = null;
  let budgetError: string | null = null;
  try {
    budget = CgroupBudget.create({ cpusField: 'rollout.budget_cpus', runId: input.run.runId, label: input.cellRun, cpus: input.options.budget_cpus, memoryMiB: input.options.budget_memory, cleanup: input.run.cleanup });
  } catch (error) {
    budgetError = `budget: ${(error as Error).message}`;
  }
  const killers = new Set<() => void>();
  let stopping = false;
  const killHandle = input.run.cleanup.register('process', `rollout cell ${input.cellRun}`, async () => {
    stopping = true;
    for (const kill of killers) kill();
  });
  const isVm = input.executor.traits.launch === 'vm';
  const outcomes: (Omit<CellAttemptOutcome, 'traffic' | 'phases' | 'category' | 'notes' | 'schedule'> & { notes: string[] })[] = [];
  const loadStart = loadavg();
  const sampler = budget ? startPeakSampler(budget, budgetSampleMs(budget)) : null;
  let rssPeak = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), HARNESS_RSS_SAMPLE_MS);
  const processCellIndex = nextProcessCellIndex();
  const cpuStart = process.cpuUsage();
  const helperCpu = meterHelperCpu();
  const reaper = new ScratchReaper(join(input.scratchDir, 'trash'));
  const tStart = process.hrtime.bigint();
  // Each attempt's sandbox reports the end of its start through the launch hook the attempt already calls (attempt-start.ts).
  const startSignals = new Map<string, StartSignal>();
  const onLaunched = input.onLaunched;
  input = { ...input, onLaunched: (attempt, running) => {
    const signal = startSignals.get(attempt.trialId);
    if (signal) watchStart(running, signal);
    onLaunched?.(attempt, running);
  } };
  const runOne = async (attemptIndex: number, signal: StartSignal): Promise<void> => {
    const index = signal.worker;
    startSignals.set(input.attempts[attemptIndex]!.trialId, signal);
    if (budget) {
      const attempt = input.attempts[attemptIndex]!;
      const scratchDir = join(input.scratchDir, attempt.attemptId);
      // A sandbox without a private /tmp (the host) gives the agent a scratch dir of its own instead.
      const command = commandFor(input, attempt, service, input.executor.traits.privateTmp ? '/tmp' : join(scratchDir, 'agent'));
      // Retries (same task, path and seed) and injected faults per try, each try in its own cgroup (attempt-tries.ts).
      const tries = await runAttemptTries({
        policy: input.options.retries, faults: input.options.faults, seed: input.seed ?? 0, attemptIndex: attempt.index, attemptId: attempt.attemptId, budget,
        cgroupName: (tryIndex) => (tryIndex === 0 ? `a${attemptIndex}` : `a${attemptIndex}r${tryIndex}`),
        stopped: () => stopping,
        runTry: async (t) => {
          const listeners: (() => void)[] = [];
          const kill = () => listeners.forEach((listener) => listener());
          killers.add(kill);
          const result = await runAttempt(
            {
              run: input.run,
              bundleDir: input.bundleDir,
              trialId: attempt.trialId,
              attemptId: t.routeId,
              task: attempt.task,
              path: attempt.path,
              arm: input.arm,
              backend: input.backend,
              executor: input.executor,
              scoringExecutor: input.scoringExecutor,
              scratchDir,
              discardScratch: (dir) => reaper.discard(dir),
              budget: t.cgroup?.placement() ?? budget!.placement(),
              memoryCgroup: t.cgroup,
              ...(t.cgroupError ? { memoryCgroupError: t.cgroupError } : {}),
              command: tryCommand(command, t.routeId, t.fault),
              timeoutMs: input.timeoutMs,
              scoringTimeoutMs: input.options.scoring_timeout,
              vmMemoryMiB: isVm ? input.options.vm_memory : null,
              cpus: input.options.budget_cpus,
              retain: input.options.retain,
              pssIntervalMs: input.options.pss_interval ?? null,
              rewardCache: input.rewardCache ?? null,
            },
            {
              onKill: (listener) => listeners.push(listener),
              onLaunched: (running: RunningTrial) => {
                t.onLaunched(running);
                input.onLaunched?.(attempt, running);
              },
            },
          );
          killers.delete(kill);
          return result;
        },
      });
      const last = tries[tries.length - 1]!;
      outcomes.push({ attempt, result: last.result, oomKillsDuring: last.oomKills, worker: index, notes: [...last.result.notes], tries });
    }
  };
  const scheduled = await runSchedule({
    jobs: input.attempts.length, arrival: input.arrival ?? { mode: 'closed' }, workers: input.concurrency, admissionCap: input.admissionCap ?? null, seed: input.scheduleSeed ?? 0, keepGoing: () => budget !== null, run: runOne,
  });
  const timings = new Map<number, JobTiming>(scheduled.jobs.map(({ timing }) => [timing.job, timing]));
  // The last batch's removal is the cell's work: inside its CPU window.
  for (const failure of await reaper.close()) input.run.log(`rollout cell ${input.cellRun}: scratch not removed: ${failure}`);
  const tEnd = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpuStart);
  const helper = helperCpu.read();
  clearInterval(rssTimer);
  const peak = sampler?.stop() ?? null;
  input.run.cleanup.forget(killHandle);
  await service.close();
  input.run.cleanup.forget(serviceHandle);
  await budget?.destroy();
  const baselineUnchanged = tasks.every((task, i) => treeDigest(task.repoDir) === digestsBefore[i]);

  // Every try's traffic (retries use the model's capacity too); an attempt's own is its last try's.
  const ids = new Set([...input.attempts.map((a) => a.attemptId), ...outcomes.flatMap((o) => (o.tries ?? []).map((t) => t.routeId))]);
  const { entries, byRoute: byAttempt, serviceError } = readCellModelTraffic(input.journalPath, ids);
  const wallMs = msBetween(tStart, tEnd);
  const busy = busySlotMs(entries);
  const span = modelSpanMs(entries);
  const final = outcomes.map((o) => {
    const traffic = attemptTraffic(byAttempt.get(o.tries?.[o.tries.length - 1]?.routeId ?? o.attempt.attemptId) ?? []);
    const schedule = attemptSchedule(timings.get(input.attempts.indexOf(o.attempt))!, tStart, o.result.outcome === 'ok');
    const cellCategory = finalCategory(o.result, traffic, o.oomKillsDuring, baselineUnchanged);
    const { category, note } = cellCategory.note ? cellCategory : startFailureCategory(cellCategory.category, schedule.startFailed);
    return { ...o, schedule, traffic, phases: attemptPhases(o.result.stamps, traffic), category, notes: note ? [...o.notes, note] : o.notes };
  });
  if (budgetError) {
    for (const attempt of input.attempts) {
      final.push({
        attempt, worker: -1, oomKillsDuring: 0, category: 'setup_failed', notes: [budgetError],
        schedule: { arrivalOffsetMs: 0, poolWaitMs: 0, admissionWaitMs: 0, startLatencyMs: null, startFailed: true },
        traffic: attemptTraffic([]), phases: attemptPhases({ start: tStart, staged: null, launched: null, exit: null, scored: null, end: tEnd }, attemptTraffic([])),
        result: { outcome: 'failed', category: 'setup_failed', notes: [budgetError], stamps: { start: tStart, staged: null, launched: null, exit: null, scored: null, end: tEnd }, exit: null, score: null, candidate: null, trajectory: null, memory: null, pssPeakKiB: null, pssSamples: 0, scoring: null, facts: {} },
      });
    }
  }
  return {
    outcomes: final,
    wallMs,
    tStartNs: tStart,
    peak,
    budgetError,
    harnessCpuMs: (cpu.user + cpu.system) / 1000 + helper.userMs + helper.systemMs,
    harnessCpuUserMs: cpu.user / 1000 + helper.userMs,
    harnessCpuSystemMs: cpu.system / 1000 + helper.systemMs,
    harnessHelperCpuMs: helper.userMs + helper.systemMs,
    harnessRssPeakBytes: rssPeak,
    processCellIndex,
    utilization: span ? busy / (input.capacity.slots * span) : null,
    utilizationWall: wallMs > 0 ? busy / (input.capacity.slots * wallMs) : null,
    modelSpanMs: span,
    busySlotMs: busy,
    baselineUnchanged,
    serviceError,
    loadAverage: [loadStart[0], loadavg()[0]],
    starts: scheduled.starts,
  };
}
