/** A cell's memory per rollout pools only figures measured the same way over the whole sandbox; the rest are labelled or refused. */
import { describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { cellMemory, LEGACY_PSS_METHOD } from '../../experiments/rollout/rollout-memory.ts';
import { processTreePssMethod } from '../../harness/controls/memory-method.ts';
import { hostBackend } from '../../executors/backends/host.ts';
import { podmanBackend } from '../../executors/backends/podman.ts';

const MiB = 1048576;
const record = (metrics: Record<string, number>, facts: Record<string, unknown>): TrialRecord => ({
  run_id: 'r', schema_version: 1, experiment: 'rollout', arm: { backend: 'podman', variant: null }, block: 0, position: 0, trial_id: 't', warmup: false, seed: 1,
  outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null, metrics, validity: {}, facts, notes: [],
});
const cgroup = (mib: number, method = 'cgroup-peak') => record({ memory_peak_bytes: mib * MiB }, { memory_method: method, memory_covers: 'the sandbox\'s cgroup' });

describe('cell memory', () => {
  it('pools one method: P50 and max of the attempts\' cgroup peaks, n = attempts with a figure', () => {
    expect(cellMemory([cgroup(20), cgroup(30), cgroup(50)])).toEqual({ method: 'cgroup-peak', n: 3, p50Bytes: 30 * MiB, maxBytes: 50 * MiB, note: null });
  });

  it('refuses to pool attempts measured differently, saying how many of each', () => {
    const memory = cellMemory([cgroup(20), cgroup(30, 'cgroup-peak-helpers-outside')]);
    expect(memory).toMatchObject({ method: 'mixed', n: 0, p50Bytes: null });
    expect(memory.note).toBe('attempts measured differently (cgroup-peak=1; cgroup-peak-helpers-outside=1): no pooled figure');
  });

  it('a partial figure keeps its label and says what it covers; no figure says why', () => {
    const partial = cellMemory([record({ memory_peak_bytes: MiB }, { memory_method: 'process-tree-pss-partial', memory_covers: 'the podman client only' })]);
    expect(partial).toMatchObject({ method: 'process-tree-pss-partial', n: 1, note: 'the podman client only' });
    const none = cellMemory([record({}, { memory_method: 'none', memory_covers: 'nothing was charged to /sys/.../memory.max_usage_in_bytes' })]);
    expect(none).toMatchObject({ method: 'none', n: 0, p50Bytes: null, note: 'nothing was charged to /sys/.../memory.max_usage_in_bytes' });
  });

  it('records from before issue 30 read as their sampled PSS, labelled as such with its scope', () => {
    const legacy = cellMemory([record({ pss_peak_kib: 35 * 1024 }, { pss_scope: 'launched tree (podman); no other process of this attempt seen on the host' })]);
    expect(legacy).toMatchObject({ method: LEGACY_PSS_METHOD, n: 1, p50Bytes: 35 * MiB });
    expect(legacy.note).toMatch(/^PSS sampled from launched tree \(podman\)/);
  });

  it('a process-tree PSS is the whole sandbox only where the backend charges its process tree', () => {
    expect(processTreePssMethod(hostBackend.traits)).toBe('process-tree-pss');
    expect(processTreePssMethod(podmanBackend.traits)).toBe('process-tree-pss-partial');
  });
});
