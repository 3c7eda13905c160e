import type { PlannedTrial } from '../plan/plan.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from './trial-record.ts';

/**
 * The record of a planned trial before anything is known about it: identity from the plan, and
 * "failed / harness_error" until the experiment says otherwise, so a record that is never
 * completed can never pass as a valid timing.
 */
export function plannedRecord(runId: string, experiment: string, planned: PlannedTrial): TrialRecord {
  return {
    run_id: runId,
    schema_version: TRIAL_SCHEMA_VERSION,
    experiment,
    arm: planned.arm,
    block: planned.block,
    position: planned.position,
    trial_id: planned.trial_id,
    warmup: planned.warmup,
    seed: planned.seed,
    outcome: 'failed',
    failure_category: 'harness_error',
    exit_code: null,
    t_spawn_ns: null,
    ready_ms: null,
    result_ms: null,
    completion_ms: null,
    metrics: {},
    validity: {},
    notes: [],
    facts: {},
  };
}
