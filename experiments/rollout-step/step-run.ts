/**
 * One cell run of the rollout-step kind: `steps` steps of B groups × K attempts on one arm with one
 * prefix strategy. C rollout workers take attempts in step order; step t is admitted by the
 * stand-in trainer (step-trainer.ts: staleness bound s), which consumes each full batch at a fixed
 * rate. Every attempt is the rollout kind's (runAttempt: stage, sandbox, agent against the model
 * service, collect, fresh scoring sandbox) inside one shared budget with its own child cgroup; only
 * where its starting state comes from differs (fresh, a claimed warm-pool sandbox, or a child forked
 * from its group's prepared parent: fork-group.ts). Measured
 * around the loop as in the rollout kind's cell: the harness's CPU, the baselines before and after,
 * the model journal's traffic per attempt. Each attempt runs as its tries (the rollout kind's
 * attempt-tries.ts: retries of infrastructure failures, injected faults, one cgroup per try, the
 * reward cache): the worker holds its slot through the retries, so the step waits for them too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CgroupBudget } from '../../harness/controls/cgroup-budget.ts';
import { AttemptCgroup } from '../../harness/controls/attempt-cgroup.ts';
import { treeDigest } from '../../executors/workspace-diff.ts';
import { meterHelperCpu } from '../../executors/launch/helper-cpu.ts';
import { startModelServiceProcess, } from '../../services/model/index.ts';
import { readCellModelTraffic } from '../rollout/cell-model-traffic.ts';
import { runAttempt } from '../rollout/rollout-attempt.ts';
import { runAttemptTries } from '../rollout/attempt-tries.ts';
import { tryCommand } from '../rollout/fault-injection.ts';
import { commandFor, finalCategory, nextProcessCellIndex, type CellAttempt, type CellAttemptOutcome, type CellInput, type CellResult } from '../rollout/rollout-cell.ts';
import { attemptPhases, attemptTraffic, busySlotMs, modelSpanMs } from '../rollout/rollout-phases.ts';
import type { PrefixStrategy } from './rollout-step-spec.ts';
import { createCheckpointMechanism } from '../../executors/checkpoint/registry.ts';
import type { CheckpointMechanism } from '../../executors/checkpoint/mechanism.ts';
import { attemptProgram, attemptProgramMount, ForkGroup, forkedExecutor, type ForkPhases } from './fork-group.ts';
import { StepTrainer, type TrainerStepFigures } from './step-trainer.ts';
import { claimedExecutor, pooledCommand, poolTrialDir, WarmPool, type PoolCounts, type PoolEntry } from './warm-pool.ts';

export interface StepAttempt extends CellAttempt {
  step: number;
  slot: number;
  member: number;
}

/** A rollout cell's inputs (rollout-cell.ts), with the step's own: its attempts, prefix, pool and trainer. */
export interface StepRunInput
  extends Pick<CellInput, 'run' | 'bundleDir' | 'cellRun' | 'scratchDir' | 'backend' | 'arm' | 'executor' | 'scoringExecutor' | 'concurrency' | 'capacity' | 'script' | 'journalPath' | 'support' | 'layer' | 'options' | 'timeoutMs' | 'seed' | 'rewardCache'> {
  prefix: PrefixStrategy;
  steps: number;
  poolSize: number;
  trainer: { train_ms: number; staleness: number };
  /** In step order. */
  attempts: StepAttempt[];
}

export interface StepAttemptOutcome extends CellAttemptOutcome {
  attempt: StepAttempt;
  /** warm-pool only: whether the attempt's claim (its first try's) found a ready sandbox of its task. */
  poolClaim: 'hit' | 'miss' | null;
  /** warm-pool hit: the pooled sandbox claimed (a sandbox is claimed once, never returned to the pool). */
  poolEntry: string | null;
  /** fork only: the group's prepare and checkpoint, the last try's child's restore and its run. */
  fork: ForkPhases | null;
}

export interface StepRunResult {
  cell: CellResult;
  outcomes: StepAttemptOutcome[];
  trainer: TrainerStepFigures[];
  /** warm-pool: the pool's counts, and how long the first fill took (outside the cell's clock). */
  pool: (PoolCounts & { fillMs: number | null }) | null;
}

const loadAverage = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

function childCgroup(budget: CgroupBudget, name: string): { cgroup: AttemptCgroup | null; error: string | null } {
  try {
    return { cgroup: AttemptCgroup.create(budget, name), error: null };
  } catch (error) {
    return { cgroup: null, error: `no attempt cgroup: ${(error as Error).message}` };
  }
}

/** The rollout kind's cell input shape, for its commandFor (the in-sandbox command of an attempt). */
function asCellInput(input: StepRunInput): CellInput {
  return { ...input, concurrency: input.concurrency, attempts: input.attempts };
}

type Running = Omit<StepAttemptOutcome, 'traffic' | 'phases' | 'category'>;

export async function runSteps(input: StepRunInput): Promise<StepRunResult> {
  const tasks = [...new Map(input.attempts.map((a) => [a.task.id, a.task])).values()];
  const digestsBefore = tasks.map((task) => treeDigest(task.repoDir));
  const service = await startModelServiceProcess({ script: input.script, socketDir: input.scratchDir, port: 0, slots: input.capacity.slots, baseMs: input.capacity.base_ms, perTokenMs: input.capacity.per_token_ms, journalPath: input.journalPath, log: input.run.log });
  const serviceHandle = input.run.cleanup.register('process', `model service ${service.socketPath}`, () => service.close());
  const budget = CgroupBudget.create({ cpusField: 'rollout_step.budget_cpus', runId: input.run.runId, label: input.cellRun, cpus: input.options.budget_cpus, memoryMiB: input.options.budget_memory, cleanup: input.run.cleanup });
  const cellInput = asCellInput(input);
  const agentTmp = (dir: string) => (input.executor.traits.privateTmp ? '/tmp' : join(dir, 'agent'));
  const isVm = input.executor.traits.launch === 'vm';
  const trialControls = { cpus: input.options.budget_cpus, memoryMiB: isVm ? input.options.vm_memory : null, ...(input.arm.cpuModel ? { cpuModel: input.arm.cpuModel } : {}) };

  const queue = [...input.attempts];
  const remainingPerStep = new Map<number, number>();
  for (const attempt of input.attempts) remainingPerStep.set(attempt.step, (remainingPerStep.get(attempt.step) ?? 0) + 1);
  const trainer = new StepTrainer(input.steps, input.trainer.train_ms, input.trainer.staleness);
  // a resumed cell run has steps whose attempts are all journaled already: their batches count as delivered
  for (let step = 0; step < input.steps; step++) if (!remainingPerStep.has(step)) trainer.completeStep(step);
  const pool = input.prefix === 'warm-pool' ? new WarmPool(input.poolSize, startPooled, () => queue.map((a) => a.task), releasePooled) : null;
  const mechanism = input.prefix === 'fork' ? await forkMechanism(input) : null;
  const groups = new Map<string, ForkGroup>();
  const groupOf = (attempt: StepAttempt): ForkGroup => {
    const key = `s${attempt.step}-b${attempt.slot}`;
    let group = groups.get(key);
    if (!group) {
      const command = commandFor(cellInput, attempt, service, agentTmp(join(input.scratchDir, attempt.attemptId)));
      const members = input.attempts.filter((a) => a.step === attempt.step && a.slot === attempt.slot).length;
      group = new ForkGroup(mechanism!, {
        run: input.run, dir: join(input.scratchDir, `fork-${key}`), trialId: `${input.cellRun}-fork-${key}`, baseline: attempt.task.repoDir, program: attemptProgram,
        timeoutMs: input.timeoutMs * 2, vmMemoryMiB: input.options.vm_memory,
        attach: { mounts: [...(command.mounts ?? []), attemptProgramMount()], service: command.service ?? null, budget: budget.placement() },
      }, members);
      groups.set(key, group);
    }
    return group;
  };
  const killers = new Set<() => void>();
  let stopping = false;
  const killHandle = input.run.cleanup.register('process', `rollout-step cell ${input.cellRun}`, async () => {
    stopping = true;
    trainer.abort();
    for (const kill of killers) kill();
    await pool?.close();
    for (const group of groups.values()) await group.discard().catch(() => undefined);
  });
  async function startPooled(task: StepAttempt['task'], id: string): Promise<PoolEntry> {
    const dir = poolTrialDir(input.scratchDir, id);
    const cgroup = childCgroup(budget, id);
    const trial = { run: input.run, trialId: `${input.cellRun}-${id}`, baselineWorkspace: task.repoDir, trialDir: join(dir, 'agent'), timeoutMs: input.timeoutMs * 2, controls: trialControls, budget: cgroup.cgroup?.placement() ?? budget.placement() };
    const template: CellAttempt = { trialId: trial.trialId, index: -1, attemptId: id, task, path: 'right' };
    const binding = await input.executor.stageWorkspace(trial);
    const running = await input.executor.launch(trial, pooledCommand(commandFor(cellInput, template, service, agentTmp(dir))));
    return { id, task, trial, binding, running, cgroup: cgroup.cgroup, cgroupError: cgroup.error, ready: false };
  }
  async function releasePooled(entry: PoolEntry): Promise<number | null> {
    await entry.running.kill('warm pool closed').catch(() => undefined);
    await input.executor.finishTrial(entry.trial).catch(() => undefined);
    // read once the sandbox is gone: everything it was charged
    const cpuNs = entry.cgroup?.cpuUsageNs() ?? null;
    await entry.cgroup?.destroy().catch(() => undefined);
    return cpuNs === null ? null : cpuNs / 1e6;
  }

  // A warm pool is warm before the step: its first P sandboxes start outside the cell's clock (the time is recorded).
  const fillStart = process.hrtime.bigint();
  await pool?.fill(input.timeoutMs);
  const poolFillMs = pool ? Number(process.hrtime.bigint() - fillStart) / 1e6 : null;
  const outcomes: Running[] = [];
  const processCellIndex = nextProcessCellIndex();
  const cpuStart = process.cpuUsage();
  const helperCpu = meterHelperCpu();
  const loadStart = loadAverage();
  const tStart = process.hrtime.bigint();
  const trained = trainer.run();

  const runOne = async (attempt: StepAttempt, worker: number): Promise<Running> => {
    const scratchDir = join(input.scratchDir, attempt.attemptId);
    // One claim per attempt, by its first try. A retry starts fresh: the pool's demand is the queue of
    // unclaimed attempts, so a retry's claim would take the sandbox started for the next attempt.
    const claimed = pool?.claim(attempt.task) ?? null;
    pool?.replenish();
    // A forked attempt holds its group through every try (each try restores a child of its own).
    const group = mechanism ? groupOf(attempt) : null;
    const command = commandFor(cellInput, attempt, service, agentTmp(scratchDir));
    const name = `a${attempt.step}-${attempt.slot}-${attempt.member}`;
    const fork: { last: ForkPhases | null } = { last: null };
    try {
      const tries = await runAttemptTries({
        policy: input.options.retries, faults: input.options.faults, seed: input.seed ?? 0, attemptIndex: attempt.index, attemptId: attempt.attemptId, budget,
        cgroupName: (tryIndex) => (tryIndex === 0 ? name : `${name}r${tryIndex}`),
        // A hit runs in the cgroup its pooled sandbox started in: that start is charged to the attempt that uses it.
        cgroupOf: (tryIndex) => (tryIndex === 0 && claimed ? { cgroup: claimed.cgroup, error: claimed.cgroupError } : undefined),
        stopped: () => stopping,
        runTry: async (t) => {
          const placement = t.cgroup?.placement() ?? budget.placement();
          const forked = group ? forkedExecutor(input.executor, group, placement) : null;
          const listeners: (() => void)[] = [];
          const kill = () => listeners.forEach((listener) => listener());
          killers.add(kill);
          try {
            return await runAttempt(
              {
                run: input.run, bundleDir: input.bundleDir, trialId: attempt.trialId, attemptId: t.routeId, task: attempt.task, path: attempt.path, arm: input.arm, backend: input.backend,
                executor: forked ?? (t.tryIndex === 0 && claimed ? claimedExecutor(input.executor, claimed) : input.executor),
                scoringExecutor: input.scoringExecutor, scratchDir,
                budget: placement, memoryCgroup: t.cgroup, ...(t.cgroupError ? { memoryCgroupError: t.cgroupError } : {}),
                command: tryCommand(command, t.routeId, t.fault),
                timeoutMs: input.timeoutMs, scoringTimeoutMs: input.options.scoring_timeout, vmMemoryMiB: isVm ? input.options.vm_memory : null, cpus: input.options.budget_cpus,
                retain: input.options.retain, pssIntervalMs: input.options.pss_interval ?? null, rewardCache: input.rewardCache ?? null,
              },
              { onKill: (listener) => listeners.push(listener), onLaunched: (running) => t.onLaunched(running) },
            );
          } finally {
            killers.delete(kill);
            fork.last = forked?.phases() ?? fork.last;
          }
        },
      });
      const last = tries[tries.length - 1]!;
      return { attempt, result: last.result, oomKillsDuring: last.oomKills, worker, notes: [...last.result.notes], tries, poolClaim: pool ? (claimed ? 'hit' : 'miss') : null, poolEntry: claimed?.id ?? null, fork: fork.last };
    } finally {
      await group?.release().catch(() => undefined);
    }
  };

  const worker = async (index: number) => {
    while (queue.length > 0) {
      const head = queue[0]!;
      // checked and taken in one turn of the event loop: no other worker can take it in between
      if (!trainer.admits(head.step)) {
        await trainer.admitted(head.step);
        continue;
      }
      const attempt = queue.shift()!;
      trainer.startedStep(attempt.step);
      outcomes.push(await runOne(attempt, index));
      const left = remainingPerStep.get(attempt.step)! - 1;
      remainingPerStep.set(attempt.step, left);
      if (left === 0) trainer.completeStep(attempt.step);
    }
  };
  try {
    await Promise.all(Array.from({ length: input.concurrency }, (_, index) => worker(index)));
  } finally {
    await pool?.close();
    // every group discards itself after its last attempt; this is for a cell run cut short
    for (const group of groups.values()) await group.discard().catch(() => undefined);
    await mechanism?.teardown();
  }
  const trainerFigures = await trained;
  const tEnd = process.hrtime.bigint();
  const cpu = process.cpuUsage(cpuStart);
  const helper = helperCpu.read();
  input.run.cleanup.forget(killHandle);
  await service.close();
  input.run.cleanup.forget(serviceHandle);
  await budget.destroy();
  const baselineUnchanged = tasks.every((task, i) => treeDigest(task.repoDir) === digestsBefore[i]);
  return { ...finish(input, outcomes, baselineUnchanged, { tStart, tEnd, cpu, helper, loadStart, processCellIndex }), trainer: trainerFigures, pool: pool ? { ...pool.counts, fillMs: poolFillMs } : null };
}

/** The backend's checkpoint mechanism, probed and prepared outside the cell's clock (the kind checked it honours attach). */
async function forkMechanism(input: StepRunInput): Promise<CheckpointMechanism> {
  const mechanism = createCheckpointMechanism(input.backend, input.executor.variant);
  if (!mechanism) throw new Error(`fork: backend ${input.backend}'s descriptor offers no checkpoint mechanism`);
  const probe = await mechanism.probe();
  if (!probe.available) throw new Error(`fork: the ${input.backend} checkpoint mechanism is unavailable here: ${probe.reason ?? 'no reason given'}`);
  await mechanism.prepare(input.run);
  return mechanism;
}

/** Join each attempt with its model traffic; the cell's figures as the rollout kind's record expects them. */
function finish(input: StepRunInput, outcomes: Running[], baselineUnchanged: boolean, meter: { tStart: bigint; tEnd: bigint; cpu: NodeJS.CpuUsage; helper: { userMs: number; systemMs: number }; loadStart: number; processCellIndex: number }): Pick<StepRunResult, 'cell' | 'outcomes'> {
  // Every try's traffic (retries use the model's capacity too); an attempt's own is its last try's.
  const ids = new Set([...input.attempts.map((a) => a.attemptId), ...outcomes.flatMap((o) => (o.tries ?? []).map((t) => t.routeId))]);
  const { entries, byRoute: byAttempt, serviceError } = readCellModelTraffic(input.journalPath, ids);
  const final = outcomes.map((o): StepAttemptOutcome => {
    const traffic = attemptTraffic(byAttempt.get(o.tries?.at(-1)?.routeId ?? o.attempt.attemptId) ?? []);
    const { category, note } = finalCategory(o.result, traffic, o.oomKillsDuring, baselineUnchanged);
    return { ...o, traffic, phases: attemptPhases(o.result.stamps, traffic), category, notes: note ? [...o.notes, note] : o.notes };
  });
  const wallMs = Number(meter.tEnd - meter.tStart) / 1e6;
  const busy = busySlotMs(entries);
  const span = modelSpanMs(entries);
  const cell: CellResult = {
    outcomes: final,
    wallMs,
    tStartNs: meter.tStart,
    peak: null,
    budgetError: null,
    harnessCpuMs: (meter.cpu.user + meter.cpu.system) / 1000 + meter.helper.userMs + meter.helper.systemMs,
    harnessCpuUserMs: meter.cpu.user / 1000 + meter.helper.userMs,
    harnessCpuSystemMs: meter.cpu.system / 1000 + meter.helper.systemMs,
    harnessHelperCpuMs: meter.helper.userMs + meter.helper.systemMs,
    harnessRssPeakBytes: process.memoryUsage().rss,
    processCellIndex: meter.processCellIndex,
    utilization: span ? busy / (input.capacity.slots * span) : null,
    utilizationWall: wallMs > 0 ? busy / (input.capacity.slots * wallMs) : null,
    modelSpanMs: span,
    busySlotMs: busy,
    baselineUnchanged,
    serviceError,
    loadAverage: [meter.loadStart, loadAverage()],
  };
  return { cell, outcomes: final };
}
