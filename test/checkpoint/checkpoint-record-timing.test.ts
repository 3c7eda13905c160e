/** A checkpoint record says how its processes were launched: the run's timing path and launcher floor. */
import { afterAll, describe, expect, it } from 'vitest';
import { checkpointRecord } from '../../experiments/checkpoint/checkpoint-record.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { judgeCheckpoint } from '../../experiments/checkpoint/checkpoint-judge.ts';
import { closeTimingSession, timingSession } from '../../executors/launch/timing-session.ts';
import { passingObservation } from './observation-fixture.ts';

const base: TrialRecord = { run_id: 'r', schema_version: 1, experiment: 'checkpoint', arm: { backend: 'staged', variant: null }, block: 0, position: 0, trial_id: 't', warmup: false, seed: 1, outcome: 'failed', failure_category: null, exit_code: null, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null, metrics: {}, validity: {}, notes: [], facts: {} };

afterAll(async () => closeTimingSession());

describe('checkpoint record timing', () => {
  it('before the run opened its timing session the record says so; after, it carries the session’s path and floor', async () => {
    const observation = passingObservation('files');
    await closeTimingSession();
    expect(checkpointRecord({ ...base }, observation, judgeCheckpoint(observation)).facts.timing).toEqual({ path: 'node', fallback_reason: 'launch before the run started the launcher' });
    const session = await timingSession();
    const timing = checkpointRecord({ ...base }, observation, judgeCheckpoint(observation)).facts.timing;
    if (session.path === 'launcher') expect(timing).toEqual({ path: 'launcher', floor_median_ms: expect.any(Number), floor_mad_ms: expect.any(Number), floor_n: session.calibration.n });
    else expect(timing).toEqual({ path: 'node', fallback_reason: session.reason });
  }, 30_000);
});
