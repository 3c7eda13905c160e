/**
 * The lazy-image experiment (issue 6, "Lazy image"): a shell whose root filesystem arrives on demand
 * (httpfs2 → loop-mounted squashfs → bwrap) against a full OCI pull from a loopback registry
 * (podman), each cold (empty client cache) then warm (same client again). One journal record per
 * launch with timings from the host clock and the bytes the serving side counted for that launch.
 */
import { join } from 'node:path';
import { createEmptyStore, launchFullShell, pullImage, runrootPath } from '../../executors/lazy/full-client.ts';
import { launchLazyShell, mountLazyRoot } from '../../executors/lazy/lazy-client.ts';
import type { ByteCounters } from '../../executors/lazy/counting-http-server.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import { TRIAL_SCHEMA_VERSION, type FailureCategory, type Outcome, type TrialRecord } from '../../harness/journal/trial-record.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import type { Experiment, ExperimentContext } from '../experiment.ts';
import { LAZY_TASK_ARGV, launchFailure, observeLaunch, type LaunchObservation } from './launch-observation.ts';
import { openCampaign, probeLazyTools, type LazyCampaign } from './lazy-campaign.ts';
import { buildLazyPlan, type CacheState, type LazyVariant } from './lazy-plan.ts';

const campaigns = new Map<string, LazyCampaign>();

/** What one launch produced before it becomes a record. */
interface LaunchOutcome {
  t0: bigint | null;
  observation: LaunchObservation | null;
  counters: ByteCounters | null;
  /** Time to make the image usable by the client (cold only): httpfs2 + loop mount, or `podman pull`. */
  fetchPhaseMs: number | null;
  failure: { category: FailureCategory; reason: string } | null;
  validity: Record<string, 'pass' | 'fail'>;
  notes: string[];
  facts: Record<string, unknown>;
  /** Accounting/teardown failures: they fail the trial and invalidate the campaign. */
  accountingProblems: string[];
}

const emptyOutcome = (): LaunchOutcome => ({ t0: null, observation: null, counters: null, fetchPhaseMs: null, failure: null, validity: {}, notes: [], facts: {}, accountingProblems: [] });
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function cpuPrefix(spec: Spec): string[] {
  return spec.controls.cpus ? ['taskset', '-c', spec.controls.cpus] : [];
}

function taskArgv(spec: Spec): string[] {
  return spec.task.argv ?? LAZY_TASK_ARGV;
}

function campaignOf(ctx: ExperimentContext): LazyCampaign {
  const campaign = campaigns.get(ctx.run.runId);
  if (!campaign) throw new Error('lazy-image: prepare() did not run for this run');
  return campaign;
}

/** Read the serving side's counters for this launch and check they add up. */
function takeCounters(campaign: LazyCampaign, variant: LazyVariant, outcome: LaunchOutcome): void {
  try {
    const server = variant === 'lazy' ? campaign.content : campaign.registry.proxy;
    const counters = server.read();
    outcome.counters = counters;
    const consistent = counters.wireBytes >= counters.bodyBytes && counters.bodyBytes >= counters.contentBytes && (counters.requests > 0 || counters.wireBytes === 0);
    outcome.validity.byte_accounting = consistent ? 'pass' : 'fail';
    if (!consistent) outcome.accountingProblems.push(`inconsistent byte counters ${JSON.stringify(counters)}`);
    outcome.facts.requests_by_kind = counters.byKind;
    if (variant === 'full') outcome.facts.blobs = campaign.registry.proxy.blobs();
  } catch (error) {
    outcome.validity.byte_accounting = 'fail';
    outcome.accountingProblems.push(`reading byte counters: ${errorText(error)}`);
  }
}

function checkFullBlobs(campaign: LazyCampaign, state: CacheState, outcome: LaunchOutcome): void {
  const fetched = campaign.registry.proxy.blobs();
  const fetches = campaign.registry.proxy.blobFetches();
  if (state === 'warm') {
    const any = Object.keys(fetched).length > 0;
    outcome.validity.warm_zero_blobs = any ? 'fail' : 'pass';
    if (any) outcome.notes.push(`warm full launch fetched blobs: ${JSON.stringify(fetched)}`);
    return;
  }
  const expected = [campaign.oci.config, ...campaign.oci.layers];
  const exact = expected.every((blob) => fetched[blob.digest] === blob.size && fetches[blob.digest] === 1) && Object.keys(fetched).length === expected.length;
  const total = Object.values(fetched).reduce((sum, bytes) => sum + bytes, 0);
  outcome.validity.blob_total_matches_manifest = exact && total === campaign.oci.blobTotalBytes ? 'pass' : 'fail';
  outcome.facts.manifest_blob_total_bytes = campaign.oci.blobTotalBytes;
  if (outcome.validity.blob_total_matches_manifest === 'fail') {
    outcome.accountingProblems.push(`pulled blob bytes ${total} (${JSON.stringify(fetches)} fetches) != manifest blob total ${campaign.oci.blobTotalBytes}`);
  }
}

async function runLazyLaunch(ctx: ExperimentContext, campaign: LazyCampaign, state: CacheState, name: string, outcome: LaunchOutcome): Promise<void> {
  const { spec } = ctx;
  if (state === 'cold') {
    await campaign.lazyMount?.release();
    campaign.lazyMount = null;
    campaign.content.reset();
    try {
      campaign.lazyMount = await mountLazyRoot({ fileUrl: campaign.content.fileUrl, fileName: campaign.content.fileName, workDir: join(campaign.runDir, name), cleanup: ctx.run.cleanup, timeoutMs: spec.timeout });
    } catch (error) {
      outcome.failure = { category: 'setup_failed', reason: `lazy mount: ${errorText(error)}` };
      return;
    }
    outcome.t0 = campaign.lazyMount.tStartNs;
    outcome.fetchPhaseMs = Number(campaign.lazyMount.tMountedNs - campaign.lazyMount.tStartNs) / 1e6;
  } else {
    if (!campaign.lazyMount) {
      outcome.failure = { category: 'setup_failed', reason: 'warm lazy launch without the cold launch that mounts the image' };
      return;
    }
    campaign.content.reset();
  }
  const running = launchLazyShell(campaign.lazyMount, taskArgv(spec), spec.timeout, cpuPrefix(spec));
  outcome.t0 ??= running.tSpawnNs;
  outcome.observation = await observeLaunch(running, outcome.t0);
  outcome.failure = launchFailure(outcome.observation, false);
  takeCounters(campaign, 'lazy', outcome);
  outcome.facts.image_bytes = campaign.squashfs.bytes;
  outcome.facts.image_sha256 = campaign.squashfs.sha256;
  if (state === 'warm') {
    const fetched = outcome.counters?.contentBytes ?? null;
    outcome.validity.warm_zero_content = fetched === 0 ? 'pass' : 'fail';
    if (fetched !== 0) outcome.notes.push(`warm lazy launch fetched ${String(fetched)} content bytes`);
  }
}

async function runFullLaunch(ctx: ExperimentContext, campaign: LazyCampaign, state: CacheState, name: string, outcome: LaunchOutcome): Promise<void> {
  const { spec } = ctx;
  const reference = campaign.registry.reference;
  if (state === 'cold') {
    await campaign.fullStore?.release();
    campaign.fullStore = createEmptyStore(join(campaign.runDir, name), runrootPath(ctx.run.runId, campaign.launches), ctx.run.cleanup);
    campaign.registry.proxy.reset();
    outcome.t0 = process.hrtime.bigint();
    const pull = await pullImage(campaign.fullStore, reference, spec.timeout);
    outcome.fetchPhaseMs = Number(process.hrtime.bigint() - outcome.t0) / 1e6;
    if (pull.exitCode !== 0) {
      outcome.failure = { category: 'setup_failed', reason: `podman pull exit ${String(pull.exitCode)}: ${pull.stderr.slice(-300)}` };
      takeCounters(campaign, 'full', outcome);
      return;
    }
  } else {
    if (!campaign.fullStore) {
      outcome.failure = { category: 'setup_failed', reason: 'warm full launch without the cold launch that pulls the image' };
      return;
    }
    campaign.registry.proxy.reset();
  }
  const container = `sandbench-${ctx.run.runId}-${name}`;
  const running = launchFullShell(campaign.fullStore, reference, ctx.run.runId, container, taskArgv(spec), spec.timeout, cpuPrefix(spec));
  outcome.t0 ??= running.tSpawnNs;
  outcome.observation = await observeLaunch(running, outcome.t0);
  outcome.failure = launchFailure(outcome.observation, true);
  takeCounters(campaign, 'full', outcome);
  checkFullBlobs(campaign, state, outcome);
}

/** After the warm launch (or a failed cold one) the client state goes: a fresh cache per cold launch. */
async function releaseClient(campaign: LazyCampaign, variant: LazyVariant, outcome: LaunchOutcome): Promise<void> {
  try {
    if (variant === 'lazy') await campaign.lazyMount?.release();
    else await campaign.fullStore?.release();
    outcome.validity.client_teardown = 'pass';
  } catch (error) {
    outcome.validity.client_teardown = 'fail';
    outcome.accountingProblems.push(`teardown: ${errorText(error)}`);
  } finally {
    if (variant === 'lazy') campaign.lazyMount = null;
    else campaign.fullStore = null;
  }
}

function classify(outcome: LaunchOutcome): { outcome: Outcome; category: FailureCategory | null } {
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

function metricsOf(outcome: LaunchOutcome): Record<string, number> {
  const metrics: Record<string, number> = {};
  const obs = outcome.observation;
  if (obs?.readyMs != null) metrics.ready_ms = obs.readyMs;
  if (obs?.resultMs != null) metrics.result_ms = obs.resultMs;
  if (obs) metrics.completion_ms = obs.completionMs;
  if (outcome.fetchPhaseMs !== null) metrics.fetch_phase_ms = outcome.fetchPhaseMs;
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

function toRecord(planned: PlannedTrial, ctx: ExperimentContext, campaign: LazyCampaign | null, outcome: LaunchOutcome): TrialRecord {
  const { outcome: result, category } = classify(outcome);
  if (campaign && outcome.accountingProblems.length > 0) campaign.invalidReasons.push(...outcome.accountingProblems.map((p) => `${planned.trial_id}: ${p}`));
  const obs = outcome.observation;
  const notes = [...outcome.notes, ...outcome.accountingProblems];
  if (outcome.failure) notes.push(outcome.failure.reason);
  return {
    run_id: ctx.run.runId,
    schema_version: TRIAL_SCHEMA_VERSION,
    experiment: 'lazy-image',
    arm: planned.arm,
    block: planned.block,
    position: planned.position,
    trial_id: planned.trial_id,
    warmup: planned.warmup,
    seed: planned.seed,
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
      campaign_valid: campaign ? campaign.invalidReasons.length === 0 : false,
      campaign_invalid_reasons: campaign?.invalidReasons ?? ['no campaign'],
    },
  };
}

export const lazyImageExperiment: Experiment = {
  kind: 'lazy-image',
  plan: (spec) => buildLazyPlan(spec),
  // The experiment drives its own clients (httpfs2 + bwrap, podman with a private store): no shared executor to prepare.
  executorArms: () => [],
  async prepare(ctx) {
    if (campaigns.has(ctx.run.runId)) return;
    const tools = await probeLazyTools();
    ctx.run.log(`lazy-image tools: ${JSON.stringify(tools)}`);
    campaigns.set(ctx.run.runId, await openCampaign(ctx.run));
  },
  async runTrial(planned, ctx) {
    const outcome = emptyOutcome();
    let campaign: LazyCampaign | null = null;
    const variant = planned.arm.backend as LazyVariant;
    const state = planned.arm.variant as CacheState;
    try {
      campaign = campaignOf(ctx);
      const name = `l${String(campaign.launches++).padStart(4, '0')}-${variant}`;
      if (variant === 'lazy') await runLazyLaunch(ctx, campaign, state, name, outcome);
      else if (variant === 'full') await runFullLaunch(ctx, campaign, state, name, outcome);
      else throw new Error(`unknown lazy-image arm ${JSON.stringify(planned.arm)}`);
      if (state === 'warm' || outcome.failure) await releaseClient(campaign, variant, outcome);
    } catch (error) {
      outcome.failure = { category: 'harness_error', reason: errorText(error) };
      if (campaign) await releaseClient(campaign, variant, outcome);
    }
    return toRecord(planned, ctx, campaign, outcome);
  },
  async teardown(ctx) {
    const campaign = campaigns.get(ctx.run.runId);
    if (!campaign) return;
    try {
      await campaign.tearDown();
    } finally {
      campaigns.delete(ctx.run.runId);
    }
  },
};
