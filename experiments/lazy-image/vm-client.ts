/**
 * The VM clients of the lazy-image experiment (issue 20 item 3): a qemu-microvm guest (the same
 * kernel, initramfs and ext4 image disk the qemu executors boot) whose image disk is
 *  - vm-lazy: backed on demand over HTTP by the content service, through QEMU's curl block driver
 *    under a fresh qcow2 overlay with copy-on-read (the client's block cache: empty on a cold
 *    launch, reused by the warm one, so a warm boot must fetch no content), or
 *  - vm-full: pulled whole from the same content service into a local file first (the VM's disk),
 *    then booted from it; the warm launch boots the same file again.
 * Both read the same served object, so the byte counts compare "what the guest touched" with "the
 * image". The guest runs the lazy task (ready marker, result, exit) and reports its exit on the console.
 */
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { execa } from 'execa';
import type { RunningTrial } from '../../harness/contracts/executor.ts';
import type { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import type { TaskImage } from '../../harness/image/task-image.ts';
import { spawnTrial } from '../../executors/spawn-trial.ts';
import { MICROVM, qemuArgv, type VmLaunchSpec } from '../../executors/vm/qemu-argv.ts';
import { ensureGuestKernel } from '../../executors/vm/guest-kernel.ts';
import { ensureInitramfs } from '../../executors/vm/initramfs.ts';
import { ensureRootDisk, type RootDisk } from '../../executors/vm/root-disk.ts';
import { buildScratchDisk, writeTaskDisk } from '../../executors/vm/trial-disks.ts';
import { classifyExit, exitCodeFromLines } from '../../executors/vm/console-protocol.ts';
import { hostTscKhz, type Accelerator } from '../../executors/vm/accelerator.ts';
import { createQemuExecutor, DEFAULT_VM_MEMORY_MiB, VM_VCPUS } from '../../executors/qemu.ts';

export interface VmGuestAssets {
  kernelPath: string;
  initrdPath: string;
  rootDisk: RootDisk;
  accelerator: Accelerator;
  acceleratorReason: string;
  /** Provenance on every VM record. */
  facts: Record<string, string>;
}

/** Kernel, initramfs, image disk and the accelerator verdict, resolved as the qemu-microvm backend does. */
export async function prepareVmGuest(stateDir: string, image: TaskImage, log: (message: string) => void): Promise<VmGuestAssets> {
  const probe = await createQemuExecutor({ backend: 'qemu-microvm', profile: MICROVM, variant: null }).probe();
  if (!probe.available) throw new Error(`lazy-image VM variants need qemu-microvm: ${probe.reason ?? 'unavailable'}${probe.fix ? ` (fix: ${probe.fix})` : ''}`);
  const kernel = await ensureGuestKernel(stateDir, log);
  const initramfs = await ensureInitramfs(stateDir, kernel);
  const rootDisk = await ensureRootDisk(stateDir, image);
  const accelerator = probe.details.accelerator === 'kvm' ? 'kvm' : 'tcg';
  return {
    kernelPath: kernel.vmlinuzPath,
    initrdPath: initramfs.path,
    rootDisk,
    accelerator,
    acceleratorReason: String(probe.details.accelerator_reason ?? ''),
    facts: {
      qemu: probe.version ?? 'unknown',
      machine: MICROVM.machine,
      accelerator,
      kernel_digest: kernel.digest,
      root_disk_digest: rootDisk.digest,
      root_disk_bytes: String(rootDisk.bytes),
    },
  };
}

/** qemu -drive values use "," as separator; a literal comma is written ",,". */
const optionValue = (value: string) => value.replace(/,/g, ',,');

/**
 * The root drive of a vm-lazy guest: the qcow2 overlay (backing = the served disk over HTTP) with
 * copy-on-read, so every block the guest reads lands in the overlay. Writable because copy-on-read
 * writes the overlay; the guest itself mounts the image disk read-only (vm-init.sh).
 */
export function lazyRootDrive(overlayPath: string): string {
  return `id=root,driver=qcow2,file.driver=file,file.filename=${optionValue(overlayPath)},copy-on-read=on,if=none`;
}

/** The root drive of a vm-full guest: the pulled local copy, read-only, as the qemu executors attach it. */
export function fullRootDrive(diskPath: string): string {
  return `id=root,file=${optionValue(diskPath)},format=raw,if=none,readonly=on`;
}

/** qemuArgv with its root drive replaced (the device, serial and every other disk stay as the executors build them). */
export function withRootDrive(argv: readonly string[], drive: string): string[] {
  const index = argv.findIndex((arg, i) => argv[i - 1] === '-drive' && arg.startsWith('id=root,'));
  if (index < 0) throw new Error('qemu argv has no root drive to replace');
  return argv.map((arg, i) => (i === index ? drive : arg));
}

/**
 * QEMU's curl driver fails a read (EIO in the guest) when the server has not answered within its
 * `timeout`, 5 s by default: under TCG on a loaded 2-core host the in-process content service can be
 * scheduled that late, so the backing gets a generous one.
 */
export const CURL_TIMEOUT_S = 300;

/** The overlay's backing: raw over the http protocol node, with the curl timeout (a json: pseudo-filename). */
export function lazyBacking(url: string): string {
  return `json:${JSON.stringify({ file: { driver: 'http', url, timeout: CURL_TIMEOUT_S } })}`;
}

/** A fresh overlay over `url` (size given, `-u`: qemu-img does not open the backing, so it fetches nothing). */
export async function createLazyOverlay(url: string, bytes: number, path: string): Promise<void> {
  await execa('qemu-img', ['create', '-q', '-f', 'qcow2', '-u', '-b', lazyBacking(url), '-F', 'raw', path, String(bytes)]);
}

/** GET the whole served disk into `path` (the full pull): resolves with the bytes written. */
export async function pullWholeDisk(url: string, path: string, timeoutMs: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const req = request(url, { method: 'GET', timeout: timeoutMs }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`full pull of ${url}: HTTP ${res.statusCode}`));
        return;
      }
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      pipeline(res, createWriteStream(path)).then(() => resolve(bytes), reject);
    });
    req.on('timeout', () => req.destroy(new Error(`full pull of ${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** Client state between a cold launch and its warm launch: the overlay or the pulled disk. */
export interface VmClientState {
  dir: string;
  /** The overlay (vm-lazy) or the pulled disk (vm-full). */
  disk: string;
  release(): void;
}

export function vmClientState(dir: string, disk: string, cleanup: CleanupRegistry): VmClientState {
  mkdirSync(dir, { recursive: true });
  const handle = cleanup.register('tempdir', `lazy-image VM client ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
  return {
    dir,
    disk,
    release: () => {
      cleanup.forget(handle);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface VmLaunchRequest {
  assets: VmGuestAssets;
  name: string;
  /** Directory for this launch's scratch and task disks (made before the clock starts). */
  launchDir: string;
  rootDrive: string;
  argv: string[];
  timeoutMs: number;
  memoryMiB?: number;
  /** CPU affinity of the qemu process, applied by the launcher before exec (as every trial's). */
  cpus: string | null;
  cleanup: CleanupRegistry;
}

/** Per-launch disks, built outside the timing: an empty workspace scratch disk and the task disk. */
export async function launchDisks(launchDir: string, argv: string[]): Promise<{ scratch: string; task: string }> {
  const workspace = join(launchDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const scratch = await buildScratchDisk(workspace, launchDir);
  const task = writeTaskDisk({ argv, env: {}, stdin: 'none' }, launchDir);
  return { scratch, task };
}

/** Boot the guest; the qemu process is registered for cleanup until it exits. */
export function launchVmShell(request: VmLaunchRequest, disks: { scratch: string; task: string }): RunningTrial {
  const spec: VmLaunchSpec = {
    name: request.name,
    profile: MICROVM,
    accelerator: request.assets.accelerator,
    memoryMiB: request.memoryMiB ?? DEFAULT_VM_MEMORY_MiB,
    vcpus: VM_VCPUS,
    kernelPath: request.assets.kernelPath,
    initrdPath: request.assets.initrdPath,
    // The root path is a placeholder: withRootDrive replaces the whole root -drive value.
    disks: { root: request.assets.rootDisk.path, scratch: disks.scratch, task: disks.task },
    tscKhz: hostTscKhz(),
  };
  const argv = withRootDrive(qemuArgv(spec), request.rootDrive);
  const running = spawnTrial({ argv, controls: { cpus: request.cpus, budget: null }, clearEnv: true, env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin' }, stdin: 'none', timeoutMs: request.timeoutMs, exitCodeFromLines, classifyExit });
  const handle = request.cleanup.register('vm', request.name, () => running.kill('cleanup'));
  void running.exit.then(() => request.cleanup.forget(handle));
  return running;
}
