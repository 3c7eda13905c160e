/**
 * Pure part of the lazy-image experiment: the audits of one launch (byte accounting, warm launches
 * fetch nothing, a cold pull fetches exactly the manifest's blobs) and the journal record built from
 * it. No I/O here, so every rule that can invalidate a trial or the campaign is unit-tested.
 */
import type { ByteCounters } from '../../services/lazy-content/counting-http-server.ts';
import type { OciBlob } from '../../services/lazy-content/oci-image.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import type { FailureCategory, Outcome, TrialRecord } from '../../harness/journal/trial-record.ts';
import { plannedRecord } from '../../harness/journal/record-base.ts';
import type { LaunchObservation } from './launch-observation.ts';
import type { CacheState } from './lazy-plan.ts';

/** What one launch produced before it becomes a record. */
export interface LaunchOutcome {
  t0: bigint | null;
  observation: LaunchObservation | null;
  counters: ByteCounters | null;
  /** Time to make the image usable by the client (cold only): httpfs2 + loop mount, or `podman pull`. */
  fetchPhaseMs: number | null;
  /** hrtime just before the shell itself was spawned (cold: after the fetch phase). */
  tShellNs: bigint | null;
  failure: { category: FailureCategory; reason: string } | null;
  validity: Record<string, 'pass' | 'fail'>;
  notes: string[];
  facts: Record<string, unknown>;
  /** Accounting/teardown failures: they fail the trial and invalidate the campaign. */
  accountingProblems: string[];
}

export const emptyOutcome = (): LaunchOutcome => ({ t0: null, observation: null, counters: null, fetchPhaseMs: null, tShellNs: null, failure: null, validity: {}, notes: [], facts: {}, accountingProblems: [] });

/** Counters must nest (wire ⊇ bodies ⊇ content) and bytes without a request are impossible. */
export function auditCounters(counters: ByteCounters, outcome: LaunchOutcome): void {
  outcome.counters = counters;
  const consistent = counters.wireBytes >= counters.bodyBytes && counters.bodyBytes >= counters.contentBytes && (counters.requests > 0 || counters.wireBytes === 0);
  outcome.validity.byte_accounting = consistent ? 'pass' : 'fail';
  if (!consistent) outcome.accountingProblems.push(`inconsistent byte counters ${JSON.stringify(counters)}`);
  outcome.facts.requests_by_kind = counters.byKind;
}

/** A warm lazy launch must be served entirely from the client's cache. */
export function auditWarmLazy(outcome: LaunchOutcome): void {
  const fetched = outcome.counters?.contentBytes ?? null;
  outcome.validity.warm_zero_content = fetched === 0 ? 'pass' : 'fail';
  if (fetched !== 0) outcome.notes.push(`warm lazy launch fetched ${String(fetched)} content bytes`);
}

/**
 * Cold full pull: every manifest blob fetched exactly once with exactly its size, nothing else —
 * otherwise the byte figure is not "the image" and the campaign is invalid. Warm: no blob at all.
 */
export function auditBlobs(expected: readonly OciBlob[], fetched: Record<string, number>, fetches: Record<string, number>, state: CacheState, outcome: LaunchOutcome): void {
  outcome.facts.blobs = fetched;
  if (state === 'warm') {
    const any = Object.keys(fetched).length > 0;
    outcome.validity.warm_zero_blobs = any ? 'fail' : 'pass';
    if (any) outcome.notes.push(`warm full launch fetched blobs: ${JSON.stringify(fetched)}`);
    return;
  }
  const manifestTotal = expected.reduce((sum, blob) => sum + blob.size, 0);
  const total = Object.values(fetched).reduce((sum, bytes) => sum + bytes, 0);
  const exact = expected.every((blob) => fetched[blob.digest] === blob.size && fetches[blob.digest] === 1) && Object.keys(fetched).length === expected.length;
  outcome.facts.manifest_blob_total_bytes = manifestTotal;
  outcome.validity.blob_total_matches_manifest = exact && total === manifestTotal ? 'pass' : 'fail';
  if (outcome.validity.blob_total_matches_manifest === 'fail') {
    outcome.accountingProblems.push(`pulled blob bytes ${total} (fetches ${JSON.stringify(fetches)}) != manifest blob total ${manifestTotal}`);
  }
}

export function classify(outcome: LaunchOutcome): { outcome: Outcome; category: FailureCategory | null } {
  if (outcome.accountingProblems.length > 0) return { outcome: 'failed', category: 'recording_failed' };
  if (outcome.failure) return { outcome: 'failed', category: outcome.failure.category };
  const obs = outcome.observation;
  if (obs) {
    outcome.validity.one_ready_marker = obs.readyCount === 1 ? 'pass' : 'fail';
    outcome.validity.one_result_marker = obs.resultCount === 1 ? 'pass' : 'fail';
  }
  const anyFail = Object.values(outcome.validity).includes('fail');
  return anyFail ? { outcome: 'invalid', category: null } : { outcome: 'ok', category: null };
}

export function metricsOf(outcome: LaunchOutcome): Record<string, number> {
  const metrics: Record<string, number> = {};
  const obs = outcome.observation;
  if (obs?.readyMs != null) metrics.ready_ms = obs.readyMs;
  if (obs?.resultMs != null) metrics.result_ms = obs.resultMs;
  if (obs) metrics.completion_ms = obs.completionMs;
  if (outcome.fetchPhaseMs !== null) metrics.fetch_phase_ms = outcome.fetchPhaseMs;
  // Ready measured from the shell's own spawn: cold minus warm of this is what fetching on demand costs the shell.
  if (obs?.readyMs != null && outcome.t0 !== null && outcome.tShellNs !== null) metrics.shell_ready_ms = obs.readyMs - Number(outcome.tShellNs - outcome.t0) / 1e6;
  const c = outcome.counters;
  if (c) {
    // content = image bytes in bodies; metadata = every other byte sent (headers, manifests, pings); response = all bytes sent.
    metrics.content_bytes = c.contentBytes;
    metrics.metadata_bytes = c.wireBytes - c.contentBytes;
    metrics.response_bytes = c.wireBytes;
    metrics.body_bytes = c.bodyBytes;
    metrics.requests = c.requests;
    metrics.connections = c.connections;
    metrics.server_service_ms = c.serviceMs;
  }
  return metrics;
}

export interface CampaignState {
  /** Reasons the campaign is invalid so far; appended to by toRecord. */
  invalidReasons: string[];
}

/** The journal line of one launch; accounting/teardown problems also invalidate the campaign. */
export function toRecord(planned: PlannedTrial, runId: string, campaign: CampaignState | null, outcome: LaunchOutcome): TrialRecord {
  const { outcome: result, category } = classify(outcome);
  if (campaign && outcome.accountingProblems.length > 0) campaign.invalidReasons.push(...outcome.accountingProblems.map((p) => `${planned.trial_id}: ${p}`));
  const obs = outcome.observation;
  const notes = [...outcome.notes, ...outcome.accountingProblems];
  if (outcome.failure) notes.push(outcome.failure.reason);
  return {
    ...plannedRecord(runId, 'lazy-image', planned),
    outcome: result,
    failure_category: category,
    exit_code: obs?.exit.exitCode ?? null,
    t_spawn_ns: outcome.t0 === null ? null : outcome.t0.toString(),
    ready_ms: obs?.readyMs ?? null,
    result_ms: obs?.resultMs ?? null,
    completion_ms: obs?.completionMs ?? null,
    metrics: metricsOf(outcome),
    validity: outcome.validity,
    notes,
    facts: {
      ...outcome.facts,
      phase: planned.params?.phase ?? null,
      timing: obs?.timing ?? null,
      // The campaign is invalid iff any of its records says so: the analysis reads the last/any record.
      campaign_valid: campaign ? campaign.invalidReasons.length === 0 : false,
      campaign_invalid_reasons: campaign ? [...campaign.invalidReasons] : ['no campaign'],
    },
  };
}
