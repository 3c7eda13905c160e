/**
 * The `warm-pool` prefix strategy: up to P sandboxes kept started ahead of demand, each over its
 * task's staged workspace and already running a waiter (below) that blocks on stdin. Claiming one
 * delivers the attempt's model route on stdin, and the waiter execs the rollout's own entry command:
 * the attempt skips staging and the sandbox start. The pool is replenished in the background, for
 * the next unclaimed attempts in queue order (a pooled sandbox is per task: its workspace is that
 * task's), inside the same budget as the running attempts, so its starts compete with them as a
 * real pool's would. A claim with no ready sandbox of its task is a miss: the attempt starts fresh,
 * and the miss is counted. Everything goes through the narrow Executor contract, so any backend
 * that delivers stdin can pool; the claimed sandbox is handed to the rollout kind's attempt pipeline
 * as an Executor view (`claimedExecutor`).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Executor, RunningTrial, TaskCommand, TrialContext, WorkspaceBinding } from '../../harness/contracts/executor.ts';
import type { AttemptCgroup } from '../../harness/controls/attempt-cgroup.ts';
import type { RolloutTask } from '../rollout/task-contract.ts';

export const POOL_READY_MARKER = 'SANDBENCH_POOL_READY';
const ROUTE_VARIABLE = 'SANDBENCH_MODEL_ROUTE';
/** Consecutive start failures after which the pool stops replenishing (a backend that cannot pool must not loop). */
const MAX_START_FAILURES = 3;

/** Blocks until the route arrives on stdin, then becomes the attempt's command ("$@"). */
const WAITER = `echo ${POOL_READY_MARKER}; IFS= read -r route || exit 95; ${ROUTE_VARIABLE}=$route; export ${ROUTE_VARIABLE}; exec "$@"`;

/** The pooled form of an attempt's command: the waiter in front, stdin kept open, the route left for the claim. */
export function pooledCommand(command: TaskCommand): TaskCommand {
  const { [ROUTE_VARIABLE]: _route, ...env } = command.env;
  return { ...command, argv: ['/bin/sh', '-c', WAITER, 'sh', ...command.argv], env, stdin: 'pipe' };
}

export interface PoolEntry {
  id: string;
  task: RolloutTask;
  trial: TrialContext;
  binding: WorkspaceBinding;
  running: RunningTrial;
  cgroup: AttemptCgroup | null;
  cgroupError: string | null;
  /** The sandbox printed the waiter's marker: started and idle. */
  ready: boolean;
}

/** How the step loop starts one pooled sandbox for a task (staging, cgroup, launch of the pooled command). */
export type StartPooled = (task: RolloutTask, id: string) => Promise<PoolEntry>;

export interface PoolCounts {
  claims: number;
  hits: number;
  misses: number;
  started: number;
  startFailures: number;
  /** Started but never claimed (removed at the end of the cell run). */
  unused: number;
  /** Ready but no upcoming attempt of its task left: removed to make room. */
  retired: number;
  /** Ready, then exited before a claim (its trial timeout while idle): removed and replaced. */
  expired: number;
  /**
   * CPU the cgroups of sandboxes no attempt claimed (retired, expired, failed, unused) were charged,
   * ms: the pool's waste, never in any attempt's cost; null once one had no figure.
   */
  unclaimedCpuMs: number | null;
  notes: string[];
}

export class WarmPool {
  private readonly live: { task: RolloutTask; entry: PoolEntry | null; pending: boolean }[] = [];
  private nextId = 0;
  private failuresInARow = 0;
  private closed = false;
  readonly counts: PoolCounts = { claims: 0, hits: 0, misses: 0, started: 0, startFailures: 0, unused: 0, retired: 0, expired: 0, unclaimedCpuMs: 0, notes: [] };

  constructor(
    private readonly size: number,
    private readonly start: StartPooled,
    /** The tasks of the attempts not yet claimed, in queue order (demand). */
    private readonly upcoming: () => RolloutTask[],
    /** Removes an unclaimed sandbox; answers the CPU its cgroup was charged (ms), null without a figure. */
    private readonly release: (entry: PoolEntry) => Promise<number | null>,
  ) {}

  /**
   * Retire ready sandboxes no upcoming attempt needs (their task's demand is covered by others or
   * over), then start sandboxes for the next uncovered demand, up to P live (ready or starting).
   * Never awaits the starts.
   */
  replenish(): void {
    if (this.closed) return;
    for (const slot of this.surplus()) {
      this.live.splice(this.live.indexOf(slot), 1);
      this.counts.retired += 1;
      void this.drop(slot.entry!);
    }
    while (this.live.length < this.size && this.failuresInARow < MAX_START_FAILURES) {
      const task = this.uncoveredTask();
      if (!task) return;
      this.launch(task);
    }
  }

  /** Before the cell's clock: start the first P sandboxes and wait until each is ready or failed (a warm pool is warm before the step). */
  async fill(deadlineMs: number): Promise<void> {
    this.replenish();
    const end = Date.now() + deadlineMs;
    while (Date.now() < end && this.live.some((slot) => slot.pending || slot.entry?.ready === false)) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Take a ready sandbox of this task (hit), or null (miss: the attempt starts fresh). */
  claim(task: RolloutTask): PoolEntry | null {
    this.counts.claims += 1;
    const index = this.live.findIndex((slot) => slot.task.id === task.id && slot.entry?.ready === true);
    if (index < 0) {
      this.counts.misses += 1;
      return null;
    }
    const [slot] = this.live.splice(index, 1);
    this.counts.hits += 1;
    this.replenish();
    return slot!.entry;
  }

  /** Stop replenishing and remove every unclaimed sandbox (started or still starting). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.live.some((slot) => slot.pending)) await new Promise((resolve) => setTimeout(resolve, 20));
    const left = this.live.splice(0);
    this.counts.unused += left.length;
    for (const slot of left) if (slot.entry) await this.drop(slot.entry);
  }

  /** An unclaimed sandbox removed: its CPU is the pool's waste (a claimed one's is its attempt's). */
  private async drop(entry: PoolEntry): Promise<void> {
    const cpuMs = await this.release(entry);
    this.counts.unclaimedCpuMs = cpuMs === null || this.counts.unclaimedCpuMs === null ? null : this.counts.unclaimedCpuMs + cpuMs;
  }

  /** Live sandboxes per task, and how many of each task's upcoming attempts they do not cover. */
  private coverage(): { uncovered: RolloutTask[]; spare: Map<string, number> } {
    const spare = new Map<string, number>();
    for (const slot of this.live) spare.set(slot.task.id, (spare.get(slot.task.id) ?? 0) + 1);
    const uncovered: RolloutTask[] = [];
    for (const task of this.upcoming()) {
      const left = spare.get(task.id) ?? 0;
      if (left === 0) uncovered.push(task);
      else spare.set(task.id, left - 1);
    }
    return { uncovered, spare };
  }

  private uncoveredTask(): RolloutTask | null {
    return this.coverage().uncovered[0] ?? null;
  }

  /** Ready sandboxes beyond their task's upcoming demand. */
  private surplus(): (typeof this.live)[number][] {
    const { spare } = this.coverage();
    const out: (typeof this.live)[number][] = [];
    for (const slot of this.live) {
      const extra = spare.get(slot.task.id) ?? 0;
      if (extra > 0 && slot.entry?.ready === true) {
        out.push(slot);
        spare.set(slot.task.id, extra - 1);
      }
    }
    return out;
  }

  private launch(task: RolloutTask): void {
    const slot: (typeof this.live)[number] = { task, entry: null, pending: true };
    this.live.push(slot);
    const id = `p${this.nextId++}`;
    this.start(task, id).then(
      async (entry) => {
        slot.pending = false;
        slot.entry = entry;
        this.counts.started += 1;
        const ready = await readyOrExit(entry.running);
        if (ready) {
          entry.ready = true;
          this.failuresInARow = 0;
          void entry.running.exit.then(() => this.expired(slot));
          return;
        }
        this.failed(slot, `pooled sandbox ${id} exited before its waiter was ready`);
        await this.drop(entry);
      },
      (error: unknown) => {
        slot.pending = false;
        this.failed(slot, `pooled sandbox ${id} failed to start: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  }

  /** A ready sandbox that exited before any claim (its trial timeout while idle): dropped and replaced. */
  private expired(slot: (typeof this.live)[number]): void {
    const index = this.live.indexOf(slot);
    if (index < 0) return;
    this.live.splice(index, 1);
    this.counts.expired += 1;
    void this.drop(slot.entry!);
    this.replenish();
  }

  private failed(slot: (typeof this.live)[number], note: string): void {
    const index = this.live.indexOf(slot);
    if (index >= 0) this.live.splice(index, 1);
    this.counts.startFailures += 1;
    this.failuresInARow += 1;
    if (this.counts.notes.length < 5) this.counts.notes.push(note);
    if (this.failuresInARow === MAX_START_FAILURES) this.counts.notes.push(`${MAX_START_FAILURES} pooled starts failed in a row: the pool stopped replenishing (every later claim is a miss)`);
    this.replenish();
  }
}

/** True once the waiter's marker arrives, false when the sandbox exits first. */
function readyOrExit(running: RunningTrial): Promise<boolean> {
  return new Promise((resolve) => {
    running.onLine((line) => {
      if (line.stream === 'stdout' && line.text.includes(POOL_READY_MARKER)) resolve(true);
    });
    void running.exit.then(() => resolve(false));
  });
}

/**
 * The claimed sandbox as the attempt pipeline's executor: staging returns the pooled workspace,
 * launch delivers the route (its stamp is the delivery: the attempt's start of work in a sandbox
 * that was already up), collect and finishTrial act on the pooled trial. Everything else is the
 * backend's own.
 */
export function claimedExecutor(inner: Executor, entry: PoolEntry): Executor {
  return {
    backend: inner.backend,
    traits: inner.traits,
    variant: inner.variant,
    probe: () => inner.probe(),
    prepare: (run) => inner.prepare(run),
    stageWorkspace: async () => entry.binding,
    async launch(_trial, command) {
      const route = command.env[ROUTE_VARIABLE];
      if (!route) throw new Error(`claimed pool sandbox ${entry.id}: the attempt's command has no ${ROUTE_VARIABLE}`);
      const delivered = process.hrtime.bigint();
      entry.running.writeStdin(`${route}\n`);
      return deliveredView(entry.running, delivered);
    },
    collect: (_trial, binding) => inner.collect(entry.trial, binding),
    async finishTrial() {
      await inner.finishTrial(entry.trial);
      rmSync(entry.trial.trialDir, { recursive: true, force: true });
    },
    teardown: async () => undefined,
  };
}

function deliveredView(running: RunningTrial, delivered: bigint): RunningTrial {
  return {
    tSpawnNs: delivered,
    get lines() {
      return running.lines;
    },
    onLine: (listener) => running.onLine(listener),
    writeStdin: (text) => running.writeStdin(text),
    closeStdin: () => running.closeStdin(),
    exit: running.exit,
    kill: (reason) => running.kill(reason),
    rootPids: () => running.rootPids(),
    ...(running.timing ? { timing: running.timing } : {}),
  };
}

/** A pooled sandbox's own trial directory (below the cell run's scratch). */
export function poolTrialDir(scratchDir: string, id: string): string {
  const dir = join(scratchDir, 'pool', id);
  mkdirSync(dir, { recursive: true });
  return dir;
}
