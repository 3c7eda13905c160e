/**
 * A checkpoint trial's journal record from its observation and verdict. The analysis groups records
 * by (arm, K) (checkpointCellOf), so the generic summary never pools children counts; per-child
 * figures (restore times, PSS) are in facts.child_results.
 */
import { median } from 'simple-statistics';
import type { TimingPath } from '../../harness/contracts/executor.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { runTimingPath } from '../../executors/launch/timing-session.ts';
import type { CheckpointVerdict } from './checkpoint-judge.ts';
import type { CheckpointObservation } from './checkpoint-observation.ts';

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/** `timing`: how the trial's processes were launched (the run's path and floor; restore times are the harness's stamps around each mechanism call, on the same clock). */
export function checkpointRecord(base: TrialRecord, obs: CheckpointObservation, verdict: CheckpointVerdict, timing: TimingPath = runTimingPath()): TrialRecord {
  const k = obs.children;
  const metrics: Record<string, number> = {
    children_count: k,
    children_ready_count: verdict.counts.ready,
    files_ok_count: verdict.counts.filesOk,
    process_ok_count: verdict.counts.processOk,
    isolated_ok_count: verdict.counts.isolatedOk,
  };
  if (obs.checkpointMs !== null) metrics.checkpoint_ms = obs.checkpointMs;
  if (obs.diskBytes !== null) metrics.checkpoint_disk_bytes = obs.diskBytes;
  if (obs.memoryBytes !== null) metrics.checkpoint_memory_bytes = obs.memoryBytes;
  if (obs.diskBytes !== null && obs.memoryBytes !== null) metrics.checkpoint_bytes = obs.diskBytes + obs.memoryBytes;
  if (obs.fanoutMs !== null) metrics.fanout_ms = obs.fanoutMs;
  const restores = obs.childObservations.map((c) => c.restoreMs).filter((v): v is number => v !== null);
  if (restores.length > 0) {
    metrics.restore_median_ms = median(restores);
    metrics.restore_max_ms = Math.max(...restores);
  }
  const memories = obs.childObservations.map((c) => c.memory).filter((m) => m !== null);
  if (memories.length > 0) {
    metrics.child_pss_kib = mean(memories.map((m) => m.pssKiB));
    metrics.child_private_kib = mean(memories.map((m) => m.privateKiB));
    metrics.child_shared_kib = mean(memories.map((m) => m.sharedKiB));
  }
  const notes = [...verdict.notes, ...obs.cleanupErrors.map((error) => `cleanup: ${error}`)];
  return {
    ...base,
    outcome: verdict.outcome,
    failure_category: verdict.failureCategory,
    exit_code: null,
    // The trial's headline timing: restore-to-ready of the median child (ok trials only enter stats).
    ready_ms: restores.length > 0 ? median(restores) : null,
    completion_ms: obs.fanoutMs,
    metrics,
    validity: verdict.validity,
    notes,
    facts: {
      children: k,
      timing,
      preserves: obs.preserves,
      parent_paused: obs.parentPaused,
      checkpoint: obs.imageFacts,
      parent_tree: obs.parent?.view.tree ?? null,
      parent_counter: obs.parent?.view.counter ?? null,
      frozen_before: obs.frozenBefore,
      frozen_after: obs.frozenAfter,
      baseline_before: obs.baselineBefore,
      baseline_after: obs.baselineAfter,
      child_results: obs.childObservations.map((c) => ({
        index: c.index,
        error: c.error,
        restore_ms: c.restoreMs,
        restore_cmd_ms: c.restoreCmdMs,
        counter_before: c.before?.counter ?? null,
        token_kept: c.before && obs.parent ? c.before.token === obs.parent.view.token : null,
        tree_match: c.before && obs.parent ? c.before.tree === obs.parent.view.tree : null,
        siblings_seen: c.siblingsSeen,
        counter_after: c.counterAfter,
        pss_kib: c.memory?.pssKiB ?? null,
        private_kib: c.memory?.privateKiB ?? null,
        shared_kib: c.memory?.sharedKiB ?? null,
        ...c.facts,
      })),
    },
  };
}
