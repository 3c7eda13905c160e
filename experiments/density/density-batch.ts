/**
 * One density batch: N workers of one backend launched together into ONE fresh budget, a barrier
 * (every worker ready, errored or exited, or the ready timeout), the budget's memory sampled at the
 * barrier, membership of every batch process verified, GO written to all ready workers at once,
 * peak memory sampled every 50 ms, and wall = launch → all reaped and verified.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BudgetPlacement, Executor, RunContext, RunningTrial, TaskCommand, TimingPath, TrialContext, WorkspaceBinding, ExitInfo } from '../../harness/contracts/executor.ts';
import { adoptHelpers, checkMembership, expectedProcesses, type MembershipReport } from '../../harness/controls/budget-membership.ts';
import { CgroupBudget, type BudgetFacts } from '../../harness/controls/cgroup-budget.ts';
import { startPeakSampler, type PeakReport } from '../../harness/controls/memory-sampler.ts';
import { releaseBarrier, type BarrierRelease } from '../../executors/launch/barrier.ts';
import { harnessHelperPids, runTimingPath } from '../../executors/launch/timing-session.ts';
import { classifyWorker, DENSITY_READY, type WorkerOutcome } from './worker-outcome.ts';
import { WORKER_SCRIPT } from './density-workspace.ts';

export type DensityWorkload = 'useful' | 'idle';

export interface DensityBatchOptions {
  run: RunContext;
  executor: Executor;
  trialId: string;
  /** Directory for per-worker scratch (removed afterwards). */
  scratchDir: string;
  baselineWorkspace: string;
  concurrency: number;
  workload: DensityWorkload;
  payloadMiB: number;
  budgetCpus: string;
  budgetMemoryMiB: number;
  /** Guest RAM per VM worker. */
  vmMemoryMiB: number;
  /** TCG translation-cache size per VM worker, MiB. */
  vmTcgTbSizeMiB: number;
  readyTimeoutMs: number;
  /** Per-worker timeout (launch → exit). */
  timeoutMs: number;
  /** Move runtime helpers found outside (docker's containerd-shim) into the budget at the barrier. */
  adoptRuntimeHelpers: boolean;
  /** Where the `podman run`/`docker run` clients run: outside the budget, or inside it (charged to the batch). */
  containerClients: BudgetPlacement['clients'];
  /** Test hook, called at the barrier before the membership check. */
  beforeMembership?: (batch: { token: string; budget: CgroupBudget }) => Promise<void>;
}

export interface DensityBatchResult {
  token: string;
  workers: WorkerOutcome[];
  setupError: string | null;
  budget: BudgetFacts | null;
  membership: MembershipReport | null;
  escaped: boolean;
  barrierMemoryBytes: number | null;
  peak: PeakReport | null;
  oomKills: number;
  releaseSkewMs: number | null;
  /**
   * Which path wrote GO (the launcher's one C loop, or Node's event loop), the first write's host
   * monotonic stamp (ns, as a string) and each write's offset from it, ms, in worker order.
   */
  release: { path: BarrierRelease['path']; firstWriteNs: string; writeOffsetsMs: number[]; failedWrites: number } | null;
  /** How the batch's workers were launched and stamped (the run's path and floor); null before any launch. */
  timing?: TimingPath | null;
  barrierMs: number | null;
  wallMs: number | null;
  prepareMs: number;
  /** 1-minute load average just before the release: release skew is only as good as the machine is quiet. */
  loadAverage1m: number | null;
}


/** The per-VM controls a batch applied (recorded with every VM batch; null for non-VM backends). */
export interface VmControls {
  guest_memory_mib: number;
  /** `-accel tcg,tb-size=`: only in effect under TCG (the accelerator is in environment.json). */
  tcg_tb_size_mib: number;
}

/** The container-client placement of a podman/docker batch (null for backends without a CLI client). */
export function containerClientsOf(options: Pick<DensityBatchOptions, 'executor' | 'containerClients'>): BudgetPlacement['clients'] | null {
  return options.executor.traits.launch === 'engine-client' ? options.containerClients : null;
}

export function vmControlsOf(options: Pick<DensityBatchOptions, 'executor' | 'vmMemoryMiB' | 'vmTcgTbSizeMiB'>): VmControls | null {
  return options.executor.traits.launch === 'vm' ? { guest_memory_mib: options.vmMemoryMiB, tcg_tb_size_mib: options.vmTcgTbSizeMiB } : null;
}

interface Worker {
  index: number;
  token: string;
  trial: TrialContext;
  binding: WorkspaceBinding | null;
  running: RunningTrial | null;
  launchError: string | null;
  readyAtNs: bigint | null;
  released: boolean;
  killedByHarness: boolean;
  exit: ExitInfo | null;
}

const msBetween = (from: bigint, to: bigint) => Number(to - from) / 1e6;

function workerTask(options: DensityBatchOptions, token: string): TaskCommand {
  const payload = options.workload === 'useful' ? options.payloadMiB : 0;
  return {
    argv: ['python3', WORKER_SCRIPT, '--token', token, '--payload-mib', String(payload), '--cpus', options.budgetCpus],
    env: { PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
    stdin: 'pipe',
  };
}

/** Resolves when the worker printed READY, exited, or the shared deadline passed. */
function readyOrGone(worker: Worker, deadline: Promise<void>): Promise<void> {
  const running = worker.running;
  if (!running) return Promise.resolve();
  return Promise.race([
    new Promise<void>((resolve) =>
      running.onLine((line) => {
        if (worker.readyAtNs === null && line.stream === 'stdout' && line.text.startsWith(`${DENSITY_READY} `)) {
          worker.readyAtNs = line.tNs;
          resolve();
        }
      }),
    ),
    running.exit.then(() => undefined),
    deadline,
  ]);
}

function emptyResult(token: string, prepareMs: number, setupError: string): DensityBatchResult {
  return {
    token, workers: [], setupError, budget: null, membership: null, escaped: false, barrierMemoryBytes: null,
    peak: null, oomKills: 0, releaseSkewMs: null, release: null, barrierMs: null, wallMs: null, prepareMs, loadAverage1m: null, timing: null,
  };
}

export async function runDensityBatch(options: DensityBatchOptions): Promise<DensityBatchResult> {
  // Short (the marker lines must stay under 256 characters on VM consoles) yet unique per batch:
  // it is also how the membership check finds the batch's payload processes by their argv.
  const token = `sbd${createHash('sha256').update(`${options.run.runId}:${options.trialId}`).digest('hex').slice(0, 12)}`;
  let budget: CgroupBudget;
  try {
    budget = CgroupBudget.create({ cpusField: 'density.budget_cpus', runId: options.run.runId, label: options.trialId, cpus: options.budgetCpus, memoryMiB: options.budgetMemoryMiB, cleanup: options.run.cleanup });
  } catch (error) {
    return emptyResult(token, 0, `budget: ${(error as Error).message}`);
  }
  const workers = makeWorkers(options, token, budget);
  try {
    return await runWithBudget(options, token, budget, workers);
  } finally {
    await Promise.all(workers.map((w) => w.running?.kill('batch over').catch(() => undefined)));
    await Promise.all(workers.map((w) => options.executor.finishTrial(w.trial).catch(() => undefined)));
    await budget.destroy();
    rmSync(options.scratchDir, { recursive: true, force: true });
  }
}

function makeWorkers(options: DensityBatchOptions, token: string, budget: CgroupBudget): Worker[] {
  const isVm = options.executor.traits.launch === 'vm';
  return Array.from({ length: options.concurrency }, (_, index) => {
    const trialDir = join(options.scratchDir, `w${String(index).padStart(3, '0')}`);
    mkdirSync(trialDir, { recursive: true });
    return {
      index,
      token: `${token}-w${index}`,
      trial: {
        run: options.run,
        trialId: `${options.trialId}-w${index}`,
        baselineWorkspace: options.baselineWorkspace,
        trialDir,
        timeoutMs: options.timeoutMs,
        // The shared budget is the memory control; only VMs need a per-worker size (guest RAM).
        controls: { cpus: options.budgetCpus, memoryMiB: isVm ? options.vmMemoryMiB : null, ...(isVm ? { tcgTbSizeMiB: options.vmTcgTbSizeMiB } : {}) },
        budget: budget.placement(options.containerClients),
      },
      binding: null,
      running: null,
      launchError: null,
      readyAtNs: null,
      released: false,
      killedByHarness: false,
      exit: null,
    };
  });
}

async function runWithBudget(options: DensityBatchOptions, token: string, budget: CgroupBudget, workers: Worker[]): Promise<DensityBatchResult> {
  const prepareStart = process.hrtime.bigint();
  try {
    for (const worker of workers) worker.binding = await options.executor.stageWorkspace(worker.trial);
  } catch (error) {
    return { ...emptyResult(token, msBetween(prepareStart, process.hrtime.bigint()), `workspace staging: ${(error as Error).message}`), budget: budget.facts() };
  }
  const prepareMs = msBetween(prepareStart, process.hrtime.bigint());

  const sampler = startPeakSampler(budget);
  const tLaunch = process.hrtime.bigint();
  await Promise.all(
    workers.map(async (worker) => {
      try {
        worker.running = await options.executor.launch(worker.trial, workerTask(options, worker.token));
        void worker.running.exit.then((exit) => (worker.exit = exit));
      } catch (error) {
        worker.launchError = (error as Error).message;
      }
    }),
  );

  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, options.readyTimeoutMs)));
  await Promise.all(workers.map((worker) => readyOrGone(worker, deadline)));
  clearTimeout(timer);
  const tBarrier = process.hrtime.bigint();
  const barrierMemoryBytes = budget.memoryCurrentBytes();

  if (options.beforeMembership) await options.beforeMembership({ token, budget });
  const rootPids = workers.flatMap((w) => w.running?.rootPids() ?? []);
  const { expected, byDesign } = expectedProcesses({ rootPids, payloadToken: token, harnessPids: [process.pid, ...harnessHelperPids()], clientsInBudget: options.containerClients === 'inside', clientCommands: options.executor.traits.clientCommand ? [options.executor.traits.clientCommand] : [] });
  const adopted = options.adoptRuntimeHelpers ? adoptHelpers(budget, expected) : [];
  const membership = { ...checkMembership(budget, expected, byDesign), adopted };
  const escaped = membership.outside.length > 0;

  // The /proc scan above used up this process's time slice; yielding once first makes preemption in
  // the middle of the GO loop (which would show up as skew) less likely on a loaded machine.
  await new Promise((resolve) => setTimeout(resolve, 1));
  const loadAverage1m = Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  const released = escaped ? null : await release(workers);
  const releaseSkewMs = released?.skewMs ?? null;
  for (const worker of workers) {
    if (worker.released || !worker.running || worker.exit !== null) continue;
    worker.killedByHarness = true;
    await worker.running.kill(escaped ? 'escaped budget' : 'not ready at the barrier');
  }
  const exits = await Promise.all(workers.map((w) => w.running?.exit ?? Promise.resolve(null)));
  const peak = sampler.stop();
  const oomKills = budget.oomKillCount();
  const outcomes = workers.map((worker, i) => ({
    ...classifyWorker({
      index: worker.index,
      token: worker.token,
      payloadBytes: options.workload === 'useful' ? options.payloadMiB * 1024 * 1024 : 0,
      lines: worker.running?.lines ?? [],
      exit: exits[i] ?? null,
      launchError: worker.launchError,
      released: worker.released,
      readyMs: worker.readyAtNs === null ? null : msBetween(tLaunch, worker.readyAtNs),
      budgetOomKills: oomKills,
      killedByHarness: worker.killedByHarness,
    }),
    // Per worker: only a launch onto an idle launcher (the batch's first) runs warm-ups.
    timing: worker.running?.timing ?? null,
  }));
  // Wall ends once every worker is reaped and its result verified (pVisor: launch → all verified).
  const wallMs = msBetween(tLaunch, process.hrtime.bigint());
  return {
    token, workers: outcomes, setupError: null, budget: budget.facts(), membership, escaped, barrierMemoryBytes, peak, oomKills,
    releaseSkewMs, release: released?.summary ?? null, barrierMs: msBetween(tLaunch, tBarrier), wallMs, prepareMs, loadAverage1m,
    timing: runTimingPath(),
  };
}

/**
 * Writes GO to every ready worker back to back — through the launcher, one tight C loop stamping each
 * write — and the skew is max − min of those write stamps on the host monotonic clock.
 */
async function release(workers: Worker[]): Promise<{ skewMs: number | null; summary: DensityBatchResult['release'] } | null> {
  const ready = workers.filter((w) => w.readyAtNs !== null && w.running && w.exit === null).map((w) => ({ worker: w, running: w.running! }));
  if (ready.length === 0) return null;
  const result = await releaseBarrier(ready.map((r) => r.running), 'GO\n');
  ready.forEach(({ worker }, i) => (worker.released = result.writes[i]?.ok ?? false));
  // Closing is outside the timed loop; VM consoles turn it into ^D for the guest tty.
  for (const { running } of ready) running.closeStdin();
  const first = result.writes.reduce((min, w) => (w.tNs < min ? w.tNs : min), result.writes[0]!.tNs);
  return {
    skewMs: result.skewMs,
    summary: { path: result.path, firstWriteNs: first.toString(), writeOffsetsMs: result.writes.map((w) => msBetween(first, w.tNs)), failedWrites: result.writes.filter((w) => !w.ok).length },
  };
}
