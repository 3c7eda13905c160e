/**
 * When a rollout attempt's start is over, for the admission cap and the start latency (issue 31,
 * item 2). The start is staging the workspace, creating the sandbox and running its entry script up
 * to the script's first line, which prints the marker protocol's REFERENCE_READY (docs/architecture.md):
 * the one signal that means "the sandbox runs our code" on every backend — a container client or a
 * VM's qemu has been spawned long before that. The attempt frees its admission slot there.
 *
 * A start fails when the attempt ends its start without that line: staging or launch refused, or the
 * sandbox gone before its first line. That is infrastructure (`setup_failed` unless the executor said
 * more precisely: timeout, killed_externally, …), never the task's failure, and it stays in every
 * denominator.
 */
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import type { FailureCategory } from '../../harness/journal/trial-record.ts';
import type { JobTiming, Occupancy, StartSignal } from '../../harness/schedule/index.ts';

export const SANDBOX_STARTED_MARKER = 'REFERENCE_READY';

/** Frees the attempt's admission slot at the marker (stamped when its line was read), or marks the start failed when the sandbox ends without it. */
export function watchStart(running: RunningTrial, signal: StartSignal): void {
  running.onLine((line) => {
    if (line.stream === 'stdout' && line.text.trim() === SANDBOX_STARTED_MARKER) signal.started(line.tNs);
  });
  // after started() this is a no-op
  void running.exit.then(() => signal.startFailed(), () => signal.startFailed());
}

/**
 * An attempt whose start failed but whose category says the task failed (a sandbox that exited
 * non-zero before its entry script ran): the start's failure, so infrastructure. Other categories
 * already name an infrastructure cause and are kept.
 */
export function startFailureCategory(category: FailureCategory | null, startFailed: boolean): { category: FailureCategory | null; note: string | null } {
  if (!startFailed || category !== 'task_failed') return { category, note: null };
  return { category: 'setup_failed', note: `the sandbox ended before its entry script's first line (${SANDBOX_STARTED_MARKER}): a start failure, not the task's` };
}

/** One attempt's schedule as the record keeps it: offsets from the cell's start and the waits, ms. */
export interface AttemptSchedule {
  arrivalOffsetMs: number;
  poolWaitMs: number;
  admissionWaitMs: number;
  /** admitted → the sandbox's first line; null when the start failed. */
  startLatencyMs: number | null;
  startFailed: boolean;
}

export function attemptSchedule(timing: JobTiming, cellStartNs: bigint, completed: boolean): AttemptSchedule {
  return {
    arrivalOffsetMs: Number(timing.arrivalNs - cellStartNs) / 1e6,
    poolWaitMs: timing.poolWaitMs,
    admissionWaitMs: timing.admissionWaitMs,
    startLatencyMs: timing.startLatencyMs,
    // A completed attempt whose marker went unseen did start (its start is just unstamped): only an attempt that did not complete can have failed to start.
    startFailed: timing.startFailed && !completed,
  };
}

/** The cell's schedule coordinates, as the plan gave them. */
export interface CellSchedule {
  /** Arrival mode text (`closed`, `burst(64)`, …). */
  arrival: string;
  admissionCap: number | null;
}

/**
 * What an attempt's record keeps of its schedule: per attempt `arrival_offset_ms`, `pool_wait_ms`,
 * `admission_wait_ms` and (a start that succeeded) `start_latency_ms`; per cell run (copied onto
 * each record, so `cell_`) the peak and time-weighted mean of starts in flight; in facts the cell's
 * `arrival` and `admission_cap` and the attempt's `start_failed`.
 */
export function scheduleRecordFields(schedule: AttemptSchedule | undefined, starts: Occupancy | undefined, cell: CellSchedule | undefined): { metrics: Record<string, number>; facts: Record<string, unknown> } {
  const metrics: Record<string, number> = {};
  if (schedule) {
    metrics.arrival_offset_ms = schedule.arrivalOffsetMs;
    metrics.pool_wait_ms = schedule.poolWaitMs;
    metrics.admission_wait_ms = schedule.admissionWaitMs;
    if (schedule.startLatencyMs !== null) metrics.start_latency_ms = schedule.startLatencyMs;
  }
  if (starts) {
    metrics.cell_starts_in_flight_peak = starts.peak;
    if (starts.mean !== null) metrics.cell_starts_in_flight_mean = starts.mean;
  }
  const facts: Record<string, unknown> = {
    arrival: cell?.arrival ?? 'closed',
    admission_cap: cell?.admissionCap ?? 'none',
    ...(schedule ? { start_failed: schedule.startFailed } : {}),
  };
  return { metrics, facts };
}
