/** Synthetic plans, records and shard bundles for the fleet unit tests (no processes, no executors). */
import { buildPlan, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../harness/journal/trial-record.ts';
import type { ResolvedSpec } from '../../harness/spec/resolve-spec.ts';
import type { Manifest } from '../../harness/provenance/manifest.ts';
import type { ShardBundle } from '../../harness/fleet/shard-bundle.ts';
import { shardPlan } from '../../harness/fleet/shard-plan.ts';
import type { HostIdentity } from '../../harness/fleet/host-identity.ts';

export const SPEC = {
  name: 'fleet-unit',
  experiment: 'shell-ready' as const,
  seed: 7,
  warmups: 2,
  trials: 9,
  arms: [{ backend: 'host' as const }, { backend: 'staged' as const }],
};

export function plan(overrides: Partial<typeof SPEC> = {}): Plan {
  return buildPlan({ ...SPEC, ...overrides });
}

export function host(name: string): HostIdentity {
  return { hostname: name, machine_id: null, node_name: name };
}

/** An `ok` record of a planned trial with ready_ms = value(trial). */
export function record(trial: PlannedTrial, runId: string, value: number, facts: Record<string, unknown> = {}): TrialRecord {
  return {
    run_id: runId, schema_version: TRIAL_SCHEMA_VERSION, experiment: 'shell-ready', arm: trial.arm, block: trial.block, position: trial.position,
    trial_id: trial.trial_id, warmup: trial.warmup, seed: trial.seed, outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: '0',
    ready_ms: value, result_ms: value, completion_ms: value, metrics: { ready_ms: value }, validity: {}, notes: [], facts,
  };
}

export function resolved(runId: string, overrides: Partial<ResolvedSpec> = {}): ResolvedSpec {
  return {
    run_id: runId, spec_path: 'fleet-unit.yaml', spec_sha256: 'abc', overrides: {}, skipped_arms: [], plan_arms: ['host', 'staged'],
    spec: { ...SPEC, resamples: 500, underpowered_fraction: 0.5, controls: { swap: 0 }, compare: [{ candidate: 'staged', control: 'host', metric: 'ready_ms' }] } as unknown as ResolvedSpec['spec'],
    ...overrides,
  };
}

function manifest(runId: string): Manifest {
  return { schema_version: 1, run_id: runId, spec_sha256: 'abc', seed: 7, harness_commit: null, harness_dirty: null, tool_versions: {}, image_digests: { task: 'sha256:img' }, resumed: false, resume_count: 0, complete: true, files: {} };
}

/** Shard i of N of `full`, every trial journaled with ready_ms from `value`. */
export function shardBundle(full: Plan, index: number, count: number, hostName = 'node-a', value: (t: PlannedTrial) => number = (t) => 10 + t.position): ShardBundle {
  const sharded = JSON.parse(JSON.stringify(shardPlan(full, { index, count }, host(hostName))));
  const runId = `shard-${index}`;
  return {
    dir: `/bundles/shard-${index}`,
    plan: sharded,
    resolved: resolved(runId),
    records: sharded.trials.map((t: PlannedTrial) => record(t, runId, value(t))),
    manifest: manifest(runId),
    provenance: new Map(),
    specText: 'name: fleet-unit\n',
  };
}
