/**
 * KVM or TCG. /dev/kvm opening read-write is necessary but not sufficient: on a host that is itself
 * a VM, /dev/kvm can open and accept ioctls while guests hang after real mode (seen here: the
 * kernel stops after "Probing EDD"). So KVM is used only after a real guest booted under it; the
 * verdict is cached per host boot, qemu version and guest kernel. SANDBENCH_VM_ACCEL=tcg|kvm forces.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type Accelerator = 'kvm' | 'tcg';

export interface AcceleratorVerdict {
  accelerator: Accelerator;
  /** Why this accelerator (shown by doctor, recorded in facts). */
  reason: string;
}

/** Opening /dev/kvm read-write: the first test. Returns the error text when it fails. */
export function kvmOpenError(path = '/dev/kvm'): string | null {
  try {
    closeSync(openSync(path, 'r+'));
    return null;
  } catch (error) {
    return `${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}

export function forcedAccelerator(): Accelerator | null {
  const forced = process.env.SANDBENCH_VM_ACCEL;
  return forced === 'kvm' || forced === 'tcg' ? forced : null;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

function verdictPath(stateDir: string): string {
  return join(stateDir, 'vm', 'kvm-verdict.json');
}

function verdictKey(qemuVersion: string, kernelDigest: string): string {
  return `${bootId()}|${qemuVersion}|${kernelDigest}`;
}

export function cachedVerdict(stateDir: string, qemuVersion: string, kernelDigest: string): AcceleratorVerdict | null {
  const path = verdictPath(stateDir);
  if (!existsSync(path)) return null;
  try {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as { key: string } & AcceleratorVerdict;
    return stored.key === verdictKey(qemuVersion, kernelDigest) ? { accelerator: stored.accelerator, reason: stored.reason } : null;
  } catch {
    return null;
  }
}

export function storeVerdict(stateDir: string, qemuVersion: string, kernelDigest: string, verdict: AcceleratorVerdict): void {
  mkdirSync(join(stateDir, 'vm'), { recursive: true });
  writeFileSync(verdictPath(stateDir), `${JSON.stringify({ key: verdictKey(qemuVersion, kernelDigest), ...verdict }, null, 2)}\n`);
}

/**
 * The host TSC rate in kHz for `tsc_early_khz=`: without it a TCG guest fails to calibrate the TSC
 * against the PIT in ~25% of microvm boots and hangs (backend-notes "QEMU"). TCG's guest TSC is
 * the host's, so the host rate is the right value.
 */
export function hostTscKhz(cpuinfo = '/proc/cpuinfo'): number | null {
  try {
    const match = /^cpu MHz\s*:\s*([\d.]+)/m.exec(readFileSync(cpuinfo, 'utf8'));
    return match ? Math.round(Number.parseFloat(match[1]!) * 1000) : null;
  } catch {
    return null;
  }
}
