/**
 * The VM half of a lazy-image run: one content service serving the guest's image disk (ext4, the
 * same disk the qemu executors boot), the guest assets, and the client state a cold VM launch leaves
 * for its warm launch. Cold vm-lazy: fresh copy-on-read overlay over HTTP, then boot (t0 = before
 * the overlay is made). Cold vm-full: GET of the whole disk into a local file, then boot (t0 =
 * before the GET). Warm: boot again on the same overlay / file. Bytes are the content service's
 * counts for the launch; a warm vm-lazy boot must fetch no content.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunContext } from '../../harness/contracts/executor.ts';
import { startContentService, type ContentService } from '../../services/lazy-content/content-service.ts';
import { launchFailure, observeLaunch } from './launch-observation.ts';
import type { PlannedTrial } from '../../harness/plan/plan.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { auditCounters, auditWarmLazy, emptyOutcome, toRecord, type CampaignState, type LaunchOutcome } from './lazy-record.ts';
import type { CacheState } from './lazy-plan.ts';
import { createLazyOverlay, fullRootDrive, launchDisks, launchVmShell, lazyRootDrive, prepareVmGuest, pullWholeDisk, vmClientState, type VmClientState, type VmGuestAssets } from './vm-client.ts';

export type VmVariant = 'vm-lazy' | 'vm-full';
export const VM_VARIANTS: readonly VmVariant[] = ['vm-lazy', 'vm-full'];
export const isVmVariant = (variant: string): variant is VmVariant => (VM_VARIANTS as readonly string[]).includes(variant);

export interface VmCampaign extends CampaignState {
  runDir: string;
  assets: VmGuestAssets;
  disk: ContentService;
  client: VmClientState | null;
  launches: number;
  tearDown(): Promise<void>;
}

/** Idle keep-alive of the VM disk service: longer than any pause of a guest between two reads. */
const VM_KEEP_ALIVE_MS = 600_000;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

export async function openVmCampaign(run: RunContext): Promise<VmCampaign> {
  const runDir = mkdtempSync(join(tmpdir(), `sandbench-${run.runId}-lazyvm-`));
  const dirHandle = run.cleanup.register('tempdir', runDir, () => rmSync(runDir, { recursive: true, force: true }));
  const assets = await prepareVmGuest(run.stateDir, run.image, run.log);
  // A TCG guest on a loaded host can pause longer than Node's 30 s keep-alive between two reads; a
  // connection closed under QEMU's curl driver mid-boot surfaced as a guest that never got ready.
  const disk = await startContentService(assets.rootDisk.path, 'root.ext4', { keepAliveMs: VM_KEEP_ALIVE_MS });
  const diskHandle = run.cleanup.register('server', `lazy VM disk service ${disk.url}`, () => disk.close());
  run.log(`lazy-image VM: ${assets.accelerator} (${assets.acceleratorReason}); image disk ${assets.rootDisk.bytes} bytes served at ${disk.fileUrl}`);
  let closing: Promise<void> | null = null;
  const campaign: VmCampaign = {
    runDir,
    assets,
    disk,
    client: null,
    launches: 0,
    invalidReasons: [],
    tearDown: () => {
      closing ??= (async () => {
        campaign.client?.release();
        campaign.client = null;
        await disk.close();
        run.cleanup.forget(diskHandle);
        run.cleanup.forget(dirHandle);
        rmSync(runDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
  return campaign;
}

function takeCounters(vm: VmCampaign, outcome: LaunchOutcome): void {
  try {
    auditCounters(vm.disk.read(), outcome);
  } catch (error) {
    outcome.validity.byte_accounting = 'fail';
    outcome.accountingProblems.push(`reading byte counters: ${errorText(error)}`);
  }
}

export interface VmLaunchOptions {
  run: RunContext;
  variant: VmVariant;
  state: CacheState;
  name: string;
  argv: string[];
  timeoutMs: number;
  memoryMiB?: number;
  cpus: string | null;
}

/** One VM launch, cold or warm; fills `outcome` (never throws for a launch that failed). */
export async function runVmLaunch(vm: VmCampaign, options: VmLaunchOptions, outcome: LaunchOutcome): Promise<void> {
  const { run, variant, state, name } = options;
  const launchDir = join(vm.runDir, name);
  mkdirSync(launchDir, { recursive: true });
  // Scratch and task disks are the VM's per-launch plumbing, made before the clock starts.
  const disks = await launchDisks(launchDir, options.argv);
  if (state === 'cold') {
    vm.client?.release();
    vm.client = null;
    vm.disk.reset();
    const clientDir = join(vm.runDir, `${name}-client`);
    const client = vmClientState(clientDir, join(clientDir, variant === 'vm-lazy' ? 'root.qcow2' : 'root.ext4'), run.cleanup);
    vm.client = client;
    outcome.t0 = process.hrtime.bigint();
    try {
      if (variant === 'vm-lazy') await createLazyOverlay(vm.disk.fileUrl, vm.disk.fileBytes, client.disk);
      else {
        const bytes = await pullWholeDisk(vm.disk.fileUrl, client.disk, options.timeoutMs);
        if (bytes !== vm.disk.fileBytes) throw new Error(`full pull wrote ${bytes} of ${vm.disk.fileBytes} bytes`);
      }
    } catch (error) {
      outcome.failure = { category: 'setup_failed', reason: `${variant} fetch phase: ${errorText(error)}` };
      takeCounters(vm, outcome);
      return;
    }
    outcome.fetchPhaseMs = Number(process.hrtime.bigint() - outcome.t0) / 1e6;
  } else {
    if (!vm.client) {
      outcome.failure = { category: 'setup_failed', reason: `warm ${variant} launch without the cold launch that made its disk` };
      return;
    }
    vm.disk.reset();
  }
  const running = launchVmShell(
    {
      assets: vm.assets,
      name: `sandbench-${run.runId}-${name}`,
      launchDir,
      rootDrive: variant === 'vm-lazy' ? lazyRootDrive(vm.client.disk) : fullRootDrive(vm.client.disk),
      argv: options.argv,
      timeoutMs: options.timeoutMs,
      memoryMiB: options.memoryMiB,
      cpus: options.cpus,
      cleanup: run.cleanup,
    },
    disks,
  );
  outcome.tShellNs = running.tSpawnNs;
  outcome.t0 ??= running.tSpawnNs;
  outcome.observation = await observeLaunch(running, outcome.t0);
  outcome.failure = launchFailure(outcome.observation, false);
  takeCounters(vm, outcome);
  rmSync(launchDir, { recursive: true, force: true });
  outcome.facts.vm = vm.assets.facts;
  outcome.facts.image_bytes = vm.disk.fileBytes;
  outcome.facts.image_sha256 = vm.assets.rootDisk.digest;
  if (variant === 'vm-lazy' && state === 'warm') auditWarmLazy(outcome);
  if (variant === 'vm-full' && state === 'cold') {
    // The full pull must be exactly the disk, once: otherwise the byte figure is not "the image".
    const exact = outcome.counters !== null && outcome.counters.contentBytes === vm.disk.fileBytes;
    outcome.validity.pull_matches_image = exact ? 'pass' : 'fail';
    if (!exact) outcome.accountingProblems.push(`full pull counted ${outcome.counters?.contentBytes ?? 'no'} content bytes for a ${vm.disk.fileBytes}-byte disk`);
  }
  if (variant === 'vm-full' && state === 'warm') {
    const fetched = outcome.counters?.contentBytes ?? null;
    outcome.validity.warm_zero_content = fetched === 0 ? 'pass' : 'fail';
  }
}

/** After the warm launch (or a failed cold one) the client's disk goes: a fresh cache per cold launch. */
export function releaseVmClient(vm: VmCampaign, outcome: LaunchOutcome): void {
  try {
    vm.client?.release();
    outcome.validity.client_teardown = 'pass';
  } catch (error) {
    outcome.validity.client_teardown = 'fail';
    outcome.accountingProblems.push(`teardown: ${errorText(error)}`);
  } finally {
    vm.client = null;
  }
}

/** One planned VM launch → its journal record (the VM counterpart of the kind's client runTrial). */
export async function runVmTrial(planned: PlannedTrial, run: RunContext, vm: VmCampaign | undefined, launch: Pick<VmLaunchOptions, 'argv' | 'timeoutMs' | 'memoryMiB' | 'cpus'>): Promise<TrialRecord> {
  const outcome = emptyOutcome();
  const variant = planned.arm.backend as VmVariant;
  const state = planned.arm.variant as CacheState;
  if (!vm) {
    outcome.failure = { category: 'harness_error', reason: 'lazy-image: prepare() did not open the VM campaign for this run' };
    return toRecord(planned, run.runId, null, outcome);
  }
  try {
    const name = `v${String(vm.launches++).padStart(4, '0')}-${variant}`;
    await runVmLaunch(vm, { run, variant, state, name, ...launch }, outcome);
    if (state === 'warm' || outcome.failure) releaseVmClient(vm, outcome);
  } catch (error) {
    outcome.failure = { category: 'harness_error', reason: errorText(error) };
    releaseVmClient(vm, outcome);
  }
  return toRecord(planned, run.runId, vm, outcome);
}
