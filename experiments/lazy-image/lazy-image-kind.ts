/**
 * The lazy-image experiment (issue 6, "Lazy image"): a shell whose root filesystem arrives on demand
 * (httpfs2 → loop-mounted squashfs → bwrap) against a full OCI pull from a loopback registry
 * (podman), each cold (empty client cache) then warm (same client again). One journal record per
 * launch with timings from the host clock and the bytes the serving side counted for that launch.
 */
import { join } from 'node:path';
import { createEmptyStore, launchFullShell, pullImage, runrootPath } from './full-client.ts';
import { launchLazyShell, mountLazyRoot } from './lazy-client.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import type { Experiment, ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { LAZY_TASK_ARGV, launchFailure, observeLaunch } from './launch-observation.ts';
import { auditBlobs, auditCounters, auditWarmLazy, emptyOutcome, toRecord, type LaunchOutcome } from './lazy-record.ts';
import { openCampaign, probeLazyTools, type LazyCampaign } from './lazy-campaign.ts';
import { buildLazyPlan, lazyRounds, type CacheState, type LazyVariant } from './lazy-plan.ts';
import { isVmVariant, openVmCampaign, runVmTrial, type VmCampaign } from './vm-launch.ts';
import { lazyImageKindAnalysis } from './lazy-image-analysis.ts';
import { lazySpecSection } from './lazy-spec.ts';
import { timingSession } from '../../executors/launch/timing-session.ts';

const campaigns = new Map<string, LazyCampaign>();
/** The VM variants' half (vm-launch.ts), opened only when the plan has a VM variant. */
const vmCampaigns = new Map<string, VmCampaign>();

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function taskArgv(spec: Spec): string[] {
  return spec.task.argv ?? LAZY_TASK_ARGV;
}

function campaignOf(ctx: ExperimentContext): LazyCampaign {
  const campaign = campaigns.get(ctx.run.runId);
  if (!campaign) throw new Error('lazy-image: prepare() did not run for this run');
  return campaign;
}

/** Read the serving side's counters for this launch and audit them. */
function takeCounters(campaign: LazyCampaign, variant: LazyVariant, outcome: LaunchOutcome): void {
  try {
    auditCounters(variant === 'lazy' ? campaign.content.read() : campaign.registry.proxy.read(), outcome);
  } catch (error) {
    outcome.validity.byte_accounting = 'fail';
    outcome.accountingProblems.push(`reading byte counters: ${errorText(error)}`);
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
  const running = launchLazyShell(campaign.lazyMount, taskArgv(spec), spec.timeout, spec.controls.cpus);
  outcome.tShellNs = running.tSpawnNs;
  outcome.t0 ??= running.tSpawnNs;
  outcome.observation = await observeLaunch(running, outcome.t0);
  outcome.failure = launchFailure(outcome.observation, false);
  takeCounters(campaign, 'lazy', outcome);
  outcome.facts.image_bytes = campaign.squashfs.bytes;
  outcome.facts.image_sha256 = campaign.squashfs.sha256;
  if (state === 'warm') auditWarmLazy(outcome);
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
  outcome.facts.manifest_digest = campaign.oci.manifestDigest;
  const container = `sandbench-${ctx.run.runId}-${name}`;
  const running = launchFullShell(campaign.fullStore, reference, ctx.run.runId, container, taskArgv(spec), spec.timeout, spec.controls.cpus);
  outcome.tShellNs = running.tSpawnNs;
  outcome.t0 ??= running.tSpawnNs;
  outcome.observation = await observeLaunch(running, outcome.t0);
  outcome.failure = launchFailure(outcome.observation, true);
  takeCounters(campaign, 'full', outcome);
  auditBlobs([campaign.oci.config, ...campaign.oci.layers], campaign.registry.proxy.blobs(), campaign.registry.proxy.blobFetches(), state, outcome);
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

export const lazyImageExperiment: Experiment = {
  kind: 'lazy-image',
  spec: { section: lazySpecSection },
  analysis: lazyImageKindAnalysis,
  plan: (spec) => buildLazyPlan(spec),
  // The experiment drives its own clients (httpfs2 + bwrap, podman with a private store): no shared executor to prepare.
  executorArms: () => [],
  async prepare(ctx) {
    // No executor probe opens the run's launcher for this kind: open it here, so every launch is stamped by it.
    await timingSession();
    const variants = lazyRounds(ctx.spec).variants;
    if (variants.some(isVmVariant) && !vmCampaigns.has(ctx.run.runId)) vmCampaigns.set(ctx.run.runId, await openVmCampaign(ctx.run));
    if (variants.every(isVmVariant) || campaigns.has(ctx.run.runId)) return;
    const tools = await probeLazyTools();
    ctx.run.log(`lazy-image tools: ${JSON.stringify(tools)}`);
    campaigns.set(ctx.run.runId, await openCampaign(ctx.run, tools));
  },
  async runTrial(planned, ctx) {
    if (isVmVariant(planned.arm.backend)) {
      return runVmTrial(planned, ctx.run, vmCampaigns.get(ctx.run.runId), { argv: taskArgv(ctx.spec), timeoutMs: ctx.spec.timeout, memoryMiB: ctx.spec.controls.memory, cpus: ctx.spec.controls.cpus ?? null });
    }
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
    if (campaign) outcome.facts.tools = campaign.tools;
    return toRecord(planned, ctx.run.runId, campaign, outcome);
  },
  async teardown(ctx) {
    const vm = vmCampaigns.get(ctx.run.runId);
    vmCampaigns.delete(ctx.run.runId);
    await vm?.tearDown();
    const campaign = campaigns.get(ctx.run.runId);
    if (!campaign) return;
    try {
      await campaign.tearDown();
    } finally {
      campaigns.delete(ctx.run.runId);
    }
  },
};
