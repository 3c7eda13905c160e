/** One journal record per density batch: metrics, per-worker outcomes, failure reasons, budget facts. */
import type { BudgetPlacement } from '../../harness/contracts/executor.ts';
import type { FailureCategory, TrialRecord } from '../../harness/journal/trial-record.ts';
import type { DensityBatchResult, VmControls } from './density-batch.ts';
import type { WorkerOutcome } from './worker-outcome.ts';

const MIB = 1024 * 1024;

export function failureReasons(workers: readonly WorkerOutcome[], result: Pick<DensityBatchResult, 'escaped' | 'setupError'>): Record<string, number> {
  const counts: Record<string, number> = {};
  const add = (reason: string, n = 1) => (counts[reason] = (counts[reason] ?? 0) + n);
  if (result.setupError) add('setup_failed');
  if (result.escaped) add('escaped_budget');
  for (const worker of workers) if (worker.reason) add(worker.reason);
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Most specific batch-level category: isolation before OOM before timeouts before task faults. */
function batchCategory(result: DensityBatchResult): FailureCategory | null {
  if (result.setupError) return 'setup_failed';
  if (result.escaped) return 'isolation_refused';
  const states = new Set(result.workers.map((w) => w.state));
  if (states.has('oom')) return 'oom';
  if (states.has('launch_failed') || states.has('infra_failed')) return 'setup_failed';
  if (states.has('timeout') || states.has('not_ready')) return 'timeout';
  if (states.has('invalid')) return 'recording_failed';
  if (states.has('task_failed')) return 'task_failed';
  return null;
}

export function densityRecord(base: TrialRecord, params: { workload: string; concurrency: number; vmControls?: VmControls | null; containerClients?: BudgetPlacement['clients'] | null }, result: DensityBatchResult): TrialRecord {
  const attempted = params.concurrency;
  const validated = result.workers.filter((w) => w.state === 'valid').length;
  const oomWorkers = result.workers.filter((w) => w.state === 'oom').length;
  const category = batchCategory(result);
  const ok = category === null && validated === attempted;
  const metrics: Record<string, number> = { attempted, validated, oom_count: oomWorkers, oom_kills: result.oomKills, prepare_ms: result.prepareMs, concurrency: attempted };
  metrics.ready_count = result.workers.filter((w) => w.ready_ms !== null).length;
  metrics.validated_fraction = validated / attempted;
  if (result.barrierMemoryBytes !== null) metrics.barrier_memory_mib = result.barrierMemoryBytes / MIB;
  if (result.peak) {
    metrics.peak_memory_mib = result.peak.peakBytes / MIB;
    metrics.sampled_peak_memory_mib = result.peak.sampledPeakBytes / MIB;
    metrics.peak_samples = result.peak.samples;
    metrics.peak_sample_max_gap_ms = result.peak.maxGapMs;
  }
  if (result.wallMs !== null) metrics.wall_ms = result.wallMs;
  if (result.barrierMs !== null) metrics.barrier_ms = result.barrierMs;
  if (result.releaseSkewMs !== null) metrics.release_skew_ms = result.releaseSkewMs;
  if (result.loadAverage1m !== null) metrics.load_average_1m = result.loadAverage1m;
  // Recorded controls of VM cells: guest RAM and the TCG translation cache both move the budget's memory.
  if (params.vmControls) {
    metrics.vm_guest_memory_mib = params.vmControls.guest_memory_mib;
    metrics.vm_tcg_tb_size_mib = params.vmControls.tcg_tb_size_mib;
  }
  const reasons = failureReasons(result.workers, result);
  const notes: string[] = [];
  if (result.setupError) notes.push(result.setupError);
  if (result.escaped && result.membership) notes.push(`escaped budget: ${result.membership.outside.map((m) => `${m.comm}[${m.pid}] ${m.where}`).join(', ')}`);
  for (const worker of result.workers.filter((w) => w.state !== 'valid').slice(0, 8)) notes.push(`worker ${worker.index}: ${worker.reason}${worker.detail ? ` (${worker.detail})` : ''}`);
  return {
    ...base,
    outcome: ok ? 'ok' : 'failed',
    failure_category: ok ? null : category ?? 'task_failed',
    exit_code: null,
    ready_ms: result.workers.length > 0 && metrics.ready_count === attempted ? result.barrierMs : null,
    result_ms: null,
    completion_ms: result.wallMs,
    metrics,
    validity: {
      budget_verified: result.budget ? 'pass' : 'fail',
      inside_budget: result.membership && !result.escaped ? 'pass' : 'fail',
      all_workers_valid: validated === attempted ? 'pass' : 'fail',
    },
    notes,
    facts: {
      workload: params.workload,
      concurrency: params.concurrency,
      vm_controls: params.vmControls ?? null,
      // podman/docker only: where the `run` clients ran (the container_clients control).
      container_clients: params.containerClients ?? null,
      token: result.token,
      failure_reasons: reasons,
      workers: result.workers,
      budget: result.budget,
      membership: result.membership,
      peak: result.peak,
      // The GO release as the launcher (or Node) stamped it: path, each write's offset, skew (issue 14).
      release: result.release
        ? { path: result.release.path, skew_ms: result.releaseSkewMs, first_write_ns: result.release.firstWriteNs, write_offsets_ms: result.release.writeOffsetsMs, failed_writes: result.release.failedWrites, load_average_1m: result.loadAverage1m }
        : null,
      timing: result.timing ?? null,
    },
  };
}
