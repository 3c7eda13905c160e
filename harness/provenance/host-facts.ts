/**
 * Facts about the machine a run happened on (pyperf's and BenchExec's system info are the models):
 * what a reader needs to judge whether two bundles are comparable.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, totalmem, hostname } from 'node:os';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../state-dir.ts';
import { readVersionInfo } from './version-info.ts';

export interface HostFacts {
  hostname: string;
  kernel: string;
  cpu_model: string;
  cores: number;
  memory_bytes: number;
  swap_bytes: number;
  cgroup: 'v1' | 'v2' | 'hybrid';
  /** /dev/kvm exists and opens; whether guests really run under it is the qemu probe's verdict. */
  kvm_device: boolean;
  node: string;
  load_average_1m: number;
  cpu_governor: string | null;
  aslr: string | null;
}

export function cgroupLayout(): HostFacts['cgroup'] {
  if (existsSync('/sys/fs/cgroup/cgroup.controllers')) return 'v2';
  return existsSync('/sys/fs/cgroup/unified') ? 'hybrid' : 'v1';
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return null;
  }
}

export function kvmUsable(): boolean {
  try {
    readFileSync('/dev/kvm', { flag: 'r+' } as never);
    return true;
  } catch (error) {
    // EINVAL on read means the device opened fine; ENOENT/EACCES mean no KVM.
    return (error as NodeJS.ErrnoException).code === 'EINVAL';
  }
}

function swapBytes(): number {
  const match = /SwapTotal:\s+(\d+) kB/.exec(readOrNull('/proc/meminfo') ?? '');
  return match ? Number(match[1]) * 1024 : 0;
}

export async function collectHostFacts(): Promise<HostFacts> {
  const kernel = (await execa('uname', ['-r'])).stdout.trim();
  return {
    hostname: hostname(),
    kernel,
    cpu_model: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memory_bytes: totalmem(),
    swap_bytes: swapBytes(),
    cgroup: cgroupLayout(),
    kvm_device: kvmUsable(),
    node: process.version,
    load_average_1m: Number((readOrNull('/proc/loadavg') ?? '0').split(' ')[0]),
    cpu_governor: readOrNull('/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor'),
    aslr: readOrNull('/proc/sys/kernel/randomize_va_space'),
  };
}

export interface HarnessRevision {
  commit: string | null;
  dirty: boolean | null;
}

/**
 * The harness's own commit and whether its checkout had uncommitted changes: from git in a checkout,
 * from the build stamp in an installed package (never the commit of a repository it is installed
 * into), null when neither knows.
 */
export async function harnessRevision(): Promise<HarnessRevision> {
  const { commit, dirty } = readVersionInfo(PROJECT_ROOT);
  return { commit, dirty };
}
