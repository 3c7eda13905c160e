import { describe, expect, it } from 'vitest';
import type { ByteCounters } from '../../services/lazy-content/counting-http-server.ts';
import type { OciBlob } from '../../services/lazy-content/oci-image.ts';
import type { LaunchObservation } from '../../experiments/lazy-image/launch-observation.ts';
import { auditBlobs, auditCounters, auditWarmLazy, emptyOutcome, toRecord, type CampaignState } from '../../experiments/lazy-image/lazy-record.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import { TrialRecordSchema } from '../../harness/journal/trial-record.ts';

const planned = (variant: 'cold' | 'warm', backend = 'lazy'): PlannedTrial => ({ trial_id: `b0003-${backend}:${variant}`, block: 3, position: 13, warmup: false, arm: { backend, variant }, seed: 5, params: { phase: 'formal' } });
const counters = (over: Partial<ByteCounters> = {}): ByteCounters => ({ requests: 3, connections: 1, contentBytes: 300, bodyBytes: 300, wireBytes: 700, serviceMs: 1, byKind: {}, ...over });
const observation: LaunchObservation = { exit: { exitCode: 0, signal: null, timedOut: false, tExitNs: 9_000_000n }, lines: [], readyMs: 5, resultMs: 6, completionMs: 9, readyCount: 1, resultCount: 1 };
const blobs: OciBlob[] = [
  { digest: 'sha256:c', size: 500, path: '/c', mediaType: 'config' },
  { digest: 'sha256:l', size: 70_000, path: '/l', mediaType: 'layer' },
];

function launched() {
  const outcome = emptyOutcome();
  outcome.t0 = 0n;
  outcome.tShellNs = 2_000_000n;
  outcome.observation = observation;
  return outcome;
}

describe('lazy-image records', () => {
  it('a clean cold lazy launch is ok, splits bytes into content + metadata = response, and keeps the campaign valid', () => {
    const campaign: CampaignState = { invalidReasons: [] };
    const outcome = launched();
    auditCounters(counters(), outcome);
    const record = toRecord(planned('cold'), 'r1', campaign, outcome);
    expect(TrialRecordSchema.parse(record)).toEqual(record);
    expect(record.outcome).toBe('ok');
    expect(record.metrics).toMatchObject({ content_bytes: 300, metadata_bytes: 400, response_bytes: 700, requests: 3, shell_ready_ms: 3 });
    expect(record.facts.campaign_valid).toBe(true);
  });

  it('a warm lazy launch that fetched content is invalid', () => {
    const outcome = launched();
    auditCounters(counters({ contentBytes: 4096, bodyBytes: 4096, wireBytes: 4300 }), outcome);
    auditWarmLazy(outcome);
    const record = toRecord(planned('warm'), 'r1', { invalidReasons: [] }, outcome);
    expect(record.outcome).toBe('invalid');
    expect(record.validity.warm_zero_content).toBe('fail');
  });

  it('a cold pull that misses, repeats or adds a blob fails the trial and invalidates the campaign', () => {
    const exact = launched();
    auditBlobs(blobs, { 'sha256:c': 500, 'sha256:l': 70_000 }, { 'sha256:c': 1, 'sha256:l': 1 }, 'cold', exact);
    expect(toRecord(planned('cold', 'full'), 'r1', { invalidReasons: [] }, exact).outcome).toBe('ok');

    for (const [fetched, fetches] of [
      [{ 'sha256:c': 500, 'sha256:l': 69_999 }, { 'sha256:c': 1, 'sha256:l': 1 }],
      [{ 'sha256:c': 500, 'sha256:l': 140_000 }, { 'sha256:c': 1, 'sha256:l': 2 }],
      [{ 'sha256:c': 500, 'sha256:l': 70_000, 'sha256:x': 1 }, { 'sha256:c': 1, 'sha256:l': 1, 'sha256:x': 1 }],
    ] as const) {
      const campaign: CampaignState = { invalidReasons: [] };
      const outcome = launched();
      auditBlobs(blobs, fetched, fetches, 'cold', outcome);
      const record = toRecord(planned('cold', 'full'), 'r1', campaign, outcome);
      expect(record.outcome).toBe('failed');
      expect(record.failure_category).toBe('recording_failed');
      expect(record.facts.campaign_valid).toBe(false);
      expect(campaign.invalidReasons).toHaveLength(1);
    }
  });

  it('a warm full launch that fetched any blob is invalid; inconsistent counters fail the trial', () => {
    const warm = launched();
    auditBlobs(blobs, { 'sha256:c': 500 }, { 'sha256:c': 1 }, 'warm', warm);
    expect(toRecord(planned('warm', 'full'), 'r1', { invalidReasons: [] }, warm).outcome).toBe('invalid');

    const broken = launched();
    auditCounters(counters({ contentBytes: 900 }), broken);
    const record = toRecord(planned('cold'), 'r1', { invalidReasons: [] }, broken);
    expect(record.failure_category).toBe('recording_failed');
    expect(record.facts.campaign_valid).toBe(false);
  });

  it('a failed launch is failed with its category, never a timing, and a missing marker makes it invalid', () => {
    const timedOut = launched();
    timedOut.failure = { category: 'timeout', reason: 'launch timed out' };
    expect(toRecord(planned('cold'), 'r1', { invalidReasons: [] }, timedOut)).toMatchObject({ outcome: 'failed', failure_category: 'timeout' });
    const noReady = launched();
    noReady.observation = { ...observation, readyMs: null, readyCount: 0 };
    const record = toRecord(planned('cold'), 'r1', { invalidReasons: [] }, noReady);
    expect(record.outcome).toBe('invalid');
    expect(record.metrics.ready_ms).toBeUndefined();
  });
});
