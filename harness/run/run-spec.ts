/**
 * `sandbench run`: spec → plan → trials → journal → analysis → report → manifest.
 * Each finished trial is fsynced to the journal before the next starts; SIGINT/SIGTERM kill the
 * trial in flight, release every registered resource, finalize what was recorded and exit 130/143.
 * A full disk anywhere (bundle, journal, scratch, image cache) stops the run the same way and ends
 * in a DiskFullError (disk-full.ts: exit 3, the path, the free space and the resume command).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../errors.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { ensureTaskImage } from '../image/ensure-image.ts';
import { JournalWriter, readJournal } from '../journal/journal.ts';
import { armLabel, type TrialRecord } from '../journal/trial-record.ts';
import { serializePlan, type Plan } from '../plan/plan.ts';
import { resolveGivenSpec } from '../spec/given-spec.ts';
import { pruneComparisons, specSha256, type ResolvedSpec, type SpecOverrides } from '../spec/resolve-spec.ts';
import { runScratchDir, stateDir } from '../state-dir.ts';
import type { Experiment, ExperimentContext } from '../contracts/experiment-kind.ts';
import type { RunWiring } from '../contracts/wiring.ts';
import type { RunContext } from '../contracts/executor.ts';
import { CleanupRegistry } from './cleanup-registry.ts';
import { removeRunScratch, runScratchRoots } from './run-scratch.ts';
import { bundleExists, newRunId, prepareBundleDir, resumeRefusal } from './bundle-dir.ts';
import { PreparedExecutors, probeArms, type ArmAvailability } from './executor-set.ts';
import { finalizeBundle } from './finalize-bundle.ts';
import { clearInflight, markInflight, readInflight, recordInterruption } from './interruptions.ts';
import { DiskFullError, diskFullNote, diskFullPath, EXIT_INFRASTRUCTURE, isDiskFull, notePath, type DiskFullContext } from './disk-full.ts';
import { createProgress } from './progress.ts';
import { acquireRunLock } from './run-lock.ts';
import { findLeftovers } from '../clean/find-leftovers.ts';
import { shardPlan, type ShardSelector } from '../fleet/shard-plan.ts';
import { readHostIdentity } from '../fleet/host-identity.ts';
import { writeEnvironment } from '../provenance/environment.ts';
import { harnessRevision } from '../provenance/host-facts.ts';
import { recordInvocation } from '../provenance/invocations.ts';
import { checkBuildsUnchanged, resolveArmBuilds } from '../spec/arm-build-check.ts';
import { fileSha256 } from '../provenance/build-identity.ts';
import { armBuilds } from '../spec/arm-builds.ts';
import { ensureArmImages } from '../image/arm-images.ts';
import type { Spec } from '../spec/schema.ts';

export interface RunRequest {
  specPath?: string;
  overrides: SpecOverrides;
  out?: string;
  resume?: string;
  dockerHost?: string;
  requireAll: boolean;
  /** Record an arm whose build cannot start a sandbox as skipped instead of refusing the run. */
  keepGoing?: boolean;
  /** Run only this shard's blocks of the plan (`--shard i/N`, harness/fleet/shard-plan.ts). */
  shard?: ShardSelector;
  log: (message: string) => void;
  /** The executor and kind registries, leftover finders and report renderer (cli/wiring.ts). */
  wiring: RunWiring;
}

export interface RunResult {
  bundleDir: string;
  interruptedBy: NodeJS.Signals | null;
  records: TrialRecord[];
}

function experimentFor(spec: Spec, wiring: RunWiring): Experiment {
  const experiment = wiring.kindFor(spec.experiment);
  if (!experiment) throw new UserError(`experiment: the "${spec.experiment}" kind is not available in this build`);
  return experiment;
}

/**
 * Drop arms whose backend is unavailable (recorded), or refuse with --require-all. An arm whose build
 * failed a real start (probe.startFailed) is refused before the first trial even without it, since
 * every trial of it would fail: --keep-going records it as skipped instead.
 */
function keepAvailableArms(spec: Spec, availability: ArmAvailability[], requireAll: boolean, keepGoing = false): { spec: Spec; skipped: ResolvedSpec['skipped_arms'] } {
  const missing = availability.filter((entry) => !entry.probe.available);
  const skipped = missing.map((entry) => ({ arm: armLabel(entry.arm), reason: `${entry.probe.reason ?? 'unavailable'}${entry.probe.fix ? ` (fix: ${entry.probe.fix})` : ''}` }));
  const cannotStart = missing.filter((entry) => entry.probe.startFailed);
  if (cannotStart.length > 0 && !keepGoing) {
    throw new UserError(`arms: ${cannotStart.map((entry) => `arm ${armLabel(entry.arm)} cannot start: ${entry.probe.reason}`).join('; ')} — fix the arm's build, or pass --keep-going to record it as skipped`);
  }
  if (skipped.length > 0 && requireAll) {
    throw new UserError(`arms: ${skipped.map((s) => `${s.arm}: ${s.reason}`).join('; ')} — install the backend or drop --require-all`);
  }
  const skippedLabels = new Set(skipped.map((s) => s.arm));
  const arms = spec.arms.filter((arm) => !skippedLabels.has(armLabel(arm)));
  if (arms.length === 0) throw new UserError(`arms: no arm is available here (${skipped.map((s) => `${s.arm}: ${s.reason}`).join('; ')})`);
  return { spec: { ...spec, arms }, skipped };
}

interface StartedRun {
  bundleDir: string;
  resolved: ResolvedSpec;
  plan: Plan;
  experiment: Experiment;
  availability: ArmAvailability[];
  resumed: boolean;
}

async function startFresh(request: RunRequest): Promise<StartedRun> {
  if (!request.specPath) throw new UserError('run: give a spec file (or --resume <bundle>)');
  const { loaded, spec: overridden } = resolveGivenSpec(request.specPath, request.overrides, request.wiring.specKinds);
  const experiment = experimentFor(overridden, request.wiring);
  const availability = await probeArms(experiment.executorArms(overridden), await request.wiring.executorsFor(overridden), armBuilds(overridden));
  const kept = keepAvailableArms(overridden, availability, request.requireAll, request.keepGoing);
  for (const entry of kept.skipped) request.log(`skipping arm ${entry.arm}: ${entry.reason}`);
  const fullPlan = experiment.plan(kept.spec);
  const plan = request.shard ? shardPlan(fullPlan, request.shard, readHostIdentity()) : fullPlan;
  if (request.shard && fullPlan.warmup_blocks > 0 && !plan.trials.some((t) => t.warmup)) request.log(`--shard: this shard has no warmup block (${fullPlan.warmup_blocks} warmup blocks for ${request.shard.count} shards): its host starts cold`);
  const planArms = plan.arms.map(armLabel);
  const { spec, dropped } = pruneComparisons(kept.spec, planArms);
  // One line, not one per comparison: with --arms most declared comparisons go, and that is expected.
  if (dropped.length > 0) request.log(`leaving out ${dropped.length} declared comparison(s) whose arm is not in this run: ${dropped.map((c) => `${c.candidate} vs ${c.control} (${c.metric})`).join(', ')}`);
  const runId = newRunId(spec.name);
  const bundleDir = resolve(request.out ?? join('runs', runId));
  prepareBundleDir(bundleDir, { allowExisting: false });
  const defaulted = loaded.defaulted.filter((field) => request.overrides[field as keyof SpecOverrides] === undefined);
  request.log(`seed ${spec.seed}${defaulted.includes('seed') ? ` (random: repeat this schedule with --seed ${spec.seed})` : ''}${defaulted.length > 0 ? `; defaults used for ${defaulted.join(', ')}` : ''}`);
  const resolved: ResolvedSpec = { run_id: runId, spec_path: request.specPath, spec_sha256: specSha256(loaded.source), overrides: request.overrides, skipped_arms: kept.skipped, plan_arms: planArms, ...(defaulted.length > 0 ? { defaulted } : {}), spec };
  writeFileSync(join(bundleDir, BUNDLE_FILES.spec), loaded.source);
  writeFileSync(join(bundleDir, BUNDLE_FILES.resolvedSpec), `${JSON.stringify(resolved, null, 2)}\n`);
  writeFileSync(join(bundleDir, BUNDLE_FILES.plan), serializePlan(plan));
  return { bundleDir, resolved, plan, experiment, availability: availability.filter((a) => a.probe.available), resumed: false };
}

async function startResume(request: RunRequest): Promise<StartedRun> {
  if (request.shard) throw new UserError('--shard: not with --resume (the bundle\'s plan.json already holds its shard); drop --shard');
  const bundleDir = resolve(request.resume!);
  if (!bundleExists(bundleDir)) throw new UserError(resumeRefusal(bundleDir));
  const resolved = JSON.parse(readFileSync(join(bundleDir, BUNDLE_FILES.resolvedSpec), 'utf8')) as ResolvedSpec;
  const plan = JSON.parse(readFileSync(join(bundleDir, BUNDLE_FILES.plan), 'utf8')) as Plan;
  const experiment = experimentFor(resolved.spec, request.wiring);
  resolveArmBuilds(join(bundleDir, BUNDLE_FILES.resolvedSpec), resolved.spec.arms);
  const environmentPath = join(bundleDir, BUNDLE_FILES.environment);
  if (existsSync(environmentPath)) checkBuildsUnchanged(JSON.parse(readFileSync(environmentPath, 'utf8')), resolved.spec.arms, fileSha256);
  const availability = await probeArms(experiment.executorArms(resolved.spec), await request.wiring.executorsFor(resolved.spec), armBuilds(resolved.spec));
  const missing = availability.filter((a) => !a.probe.available);
  if (missing.length > 0) throw new UserError(`--resume: arm ${armLabel(missing[0]!.arm)} is no longer available (${missing[0]!.probe.reason})`);
  return { bundleDir, resolved, plan, experiment, availability, resumed: true };
}

function installSignalHandlers(onSignal: (signal: NodeJS.Signals) => void): () => void {
  const handler = (signal: NodeJS.Signals) => onSignal(signal);
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}

/** Where a run is, so a disk-full error thrown from anywhere can say what to do (disk-full.ts). */
interface RunPosition {
  bundleDir: string | null;
  /** What the run is writing, and where, outside a trial (a tool's "No space left" names no path). */
  stage: { path: string | null; writing: string };
  trialId: string | null;
  journaled: number;
  planned: number;
}

export async function runSpec(request: RunRequest): Promise<RunResult> {
  const position: RunPosition = { bundleDir: null, stage: { path: null, writing: 'the bundle' }, trialId: null, journaled: 0, planned: 0 };
  try {
    return await runSpecAt(request, position);
  } catch (error) {
    if (error instanceof DiskFullError || !isDiskFull(error)) throw error;
    const bundleDir = position.bundleDir ?? resolve(request.out ?? 'runs');
    // Before plan.json exists nothing can be resumed: the bundle directory is started over.
    if (!bundleExists(bundleDir)) {
      throw new UserError(`infrastructure: disk full: ${diskFullPath(error, bundleDir)} while starting the run; nothing was recorded. Free space, remove ${bundleDir} and run the spec again`, EXIT_INFRASTRUCTURE);
    }
    throw new DiskFullError({ ...position, bundleDir, path: diskFullPath(error, position.stage.path ?? bundleDir), writing: position.trialId ? `trial ${position.trialId}` : position.stage.writing });
  }
}

async function runSpecAt(request: RunRequest, position: RunPosition): Promise<RunResult> {
  const started = request.resume ? await startResume(request) : await startFresh(request);
  const { bundleDir, resolved, plan, experiment } = started;
  position.bundleDir = bundleDir;
  position.planned = plan.trials.length;
  recordInvocation(bundleDir, await harnessRevision(), started.resumed);
  const journalPath = join(bundleDir, BUNDLE_FILES.journal);
  const existing = readJournal(journalPath);
  if (existing.tornTail) request.log(`warning: ${existing.tornTail}`);
  if (existing.tornTail) repairTornJournal(journalPath, existing.records);
  const inflight = readInflight(bundleDir);
  if (inflight) {
    recordInterruption(bundleDir, { trial_id: inflight, reason: 'harness stopped mid-trial (found on resume); re-run', detected: 'resume' });
    clearInflight(bundleDir);
  }
  const done = new Set(existing.records.map((record) => record.trial_id));
  const cleanup = new CleanupRegistry(resolved.run_id);
  if (started.resumed) await removeLeftoversOfRun(resolved.run_id, request);
  // A live run holds this lock, so `sandbench clean` never touches it.
  cleanup.register('process', 'run lock', acquireRunLock(stateDir(), resolved.run_id));
  // Every per-run scratch path lives under these roots (named with the run id, so `clean` finds them).
  // Removed after the teardown below, not by the registry a signal releases mid-trial (run-scratch.ts).
  const scratchRoots = runScratchRoots(stateDir(), resolved.run_id);
  const runScratch = runScratchDir(stateDir(), resolved.run_id);
  position.stage = { path: join(stateDir(), 'images'), writing: 'the task image cache' };
  const image = await ensureTaskImage(stateDir(), resolved.spec.image, request.log);
  const run: RunContext = { runId: resolved.run_id, image, stateDir: stateDir(), cleanup, log: request.log, options: { dockerHost: request.dockerHost ?? process.env.DOCKER_HOST } };

  let interruptedBy: NodeJS.Signals | null = null;
  let inFlight = false;
  // The release a signal starts mid-trial; the run's own teardown waits for it, so an exit can never
  // cut it short and leave the lock, the scratch or a sandbox behind.
  let signalRelease: Promise<unknown> = Promise.resolve();
  const removeHandlers = installSignalHandlers((signal) => {
    if (interruptedBy) return;
    interruptedBy = signal;
    request.log(`${signal}: stopping — killing the trial in flight and releasing resources`);
    if (inFlight) signalRelease = cleanup.releaseAll();
  });

  const armImages = await ensureArmImages(stateDir(), resolved.spec.arms, resolved.spec.image, request.log);
  position.stage = { path: stateDir(), writing: 'the backends\' state (kernels, disks, engine data)' };
  const executors = await PreparedExecutors.prepare(started.availability, run, armImages);
  const armProbes = started.availability.map((a) => ({ label: armLabel(a.arm), backend: a.arm.backend, variant: a.arm.variant, probe: a.probe, image: armImages.get(armLabel(a.arm)) }));
  position.stage = { path: bundleDir, writing: 'the bundle' };
  await writeEnvironment(bundleDir, image, started.availability.map((a) => a.probe), executors.imageFacts(), armProbes, executors.armImageFacts());
  const ctx: ExperimentContext = { run, spec: resolved.spec, bundleDir, executorFor: (arm) => executors.get(arm) };
  const journal = new JournalWriter(journalPath);
  const records = [...existing.records];
  position.journaled = records.length;
  const pending = plan.trials.filter((trial) => !done.has(trial.trial_id));
  const progress = createProgress(plan.trials.length, plan.trials.length - pending.length);
  // Set when the disk fills mid-trial: the trial keeps its inflight.json mark and is not journaled.
  let diskFull: Omit<DiskFullContext, 'bundleDir' | 'journaled' | 'planned'> | null = null;
  try {
    position.stage = { path: runScratch, writing: 'the run\'s scratch (fixtures, baseline workspace)' };
    if (!interruptedBy) await experiment.prepare(ctx);
    position.stage = { path: bundleDir, writing: 'the bundle' };
    for (const planned of pending) {
      if (interruptedBy) break;
      markInflight(bundleDir, planned.trial_id);
      position.trialId = planned.trial_id;
      inFlight = true;
      let record: TrialRecord;
      try {
        record = await experiment.runTrial(planned, ctx);
      } catch (error) {
        if (interruptedBy && !isDiskFull(error)) {
          // Released out from under it by the signal: the trial's failure is the interruption's.
          request.log(`trial ${planned.trial_id} ended by the interruption: ${error instanceof Error ? error.message : String(error)}`);
          recordInterruption(bundleDir, { trial_id: planned.trial_id, reason: `interrupted by ${interruptedBy}`, detected: 'signal' });
          clearInflight(bundleDir);
          break;
        }
        if (!isDiskFull(error)) throw error;
        diskFull = { path: diskFullPath(error, runScratch), writing: `trial ${planned.trial_id}`, trialId: planned.trial_id };
        break;
      } finally {
        inFlight = false;
      }
      if (interruptedBy) {
        recordInterruption(bundleDir, { trial_id: planned.trial_id, reason: `interrupted by ${interruptedBy}`, detected: 'signal' });
        clearInflight(bundleDir);
        break;
      }
      // A kind records a staging ENOSPC as setup_failed: that is this machine's disk, not the backend.
      const noSpace = diskFullNote(record);
      if (noSpace) {
        diskFull = { path: notePath(noSpace) ?? runScratch, writing: `trial ${planned.trial_id}'s workspace`, trialId: planned.trial_id };
        break;
      }
      try {
        journal.append(record);
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        diskFull = { path: journalPath, writing: `the journal line of trial ${planned.trial_id}`, trialId: planned.trial_id };
        break;
      }
      clearInflight(bundleDir);
      position.trialId = null;
      records.push(record);
      position.journaled = records.length;
      progress.trialDone(record);
    }
  } finally {
    progress.stop();
    journal.close();
    await signalRelease.catch((error: unknown) => request.log(`release on signal failed: ${error}`));
    await experiment.teardown(ctx).catch((error: unknown) => request.log(`experiment teardown failed: ${error}`));
    // A backend whose teardown fails must not keep the registry from releasing everything else.
    await executors.teardownAll().catch((error: unknown) => request.log(`backend teardown failed: ${error}`));
    const leftovers = await cleanup.releaseAll();
    for (const failure of leftovers) request.log(`cleanup of ${failure.handle.kind} ${failure.handle.name} failed: ${failure.error}`);
    for (const failure of removeRunScratch(scratchRoots)) request.log(`cleanup of the run's scratch failed: ${failure}`);
    removeHandlers();
  }
  const complete = !interruptedBy && !diskFull && records.length >= plan.trials.length;
  position.stage = { path: bundleDir, writing: 'the analysis files and manifest' };
  const finalize = () => finalizeBundle(bundleDir, { resolved, complete, resumed: started.resumed, image, log: request.log, kinds: request.wiring.kindFor, renderReport: request.wiring.renderReport });
  if (diskFull) {
    // The partial analysis is a courtesy (the scratch released above may have made room); resume rewrites it.
    await finalize().catch((error: unknown) => {
      if (!isDiskFull(error)) throw error;
      request.log(`disk full: the partial analysis and manifest were not written; resume writes them`);
    });
    throw new DiskFullError({ ...diskFull, bundleDir, journaled: records.length, planned: plan.trials.length });
  }
  await finalize();
  return { bundleDir, interruptedBy, records };
}

/** A run killed with -9 leaves its trial's processes, container or mounts behind; resume removes them first. */
async function removeLeftoversOfRun(runId: string, request: RunRequest): Promise<void> {
  for (const leftover of await findLeftovers({ stateDir: stateDir(), runId, sources: request.wiring.leftoverSources })) {
    request.log(`resume: removing leftover of the killed run: ${leftover.kind} ${leftover.id}`);
    await leftover.remove();
  }
}

/** Rewrite the journal without its torn last line, so the next append starts on a clean line. */
function repairTornJournal(path: string, records: TrialRecord[]): void {
  writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
}

export function journalExists(bundleDir: string): boolean {
  return existsSync(join(bundleDir, BUNDLE_FILES.journal));
}
