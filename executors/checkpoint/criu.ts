/**
 * Which CRIU the container checkpoints use, and whether it can work on this kernel. runc finds criu
 * through PATH, so podman/runc/dockerd get the sandbench-built CRIU's directory first in PATH.
 * Version policy (data/checkpoint/notes.md, measured 2026-12-01 on kernel 6.18):
 *   3.x  fails every dump: "vdso: Unexpected rt vDSO area bounds" (kernels >= 6.13 add [vvar_vclock]);
 *   4.1  fails on any AF_INET socket: "Can't get 1:16 opt: Operation not supported" (kernels >= 6.16);
 *   4.2+ works.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

/** Where scripts/build-criu.sh installs (SANDBENCH_CRIU_PREFIX overrides, as for the script). */
export function criuPrefix(): string {
  return process.env.SANDBENCH_CRIU_PREFIX ?? '/opt/sandbench-criu';
}

export interface CriuProbe {
  /** Absolute path of the criu binary found, or null. */
  path: string | null;
  version: string | null;
  usable: boolean;
  /** Why not usable, one line. */
  reason?: string;
  fix?: string;
  /** PATH to give runc's callers (podman, dockerd): the criu's directory first. */
  pathEnv: string;
}

const FIX = 'sh scripts/build-criu.sh (builds CRIU 4.2.1 from Debian sid source into /opt/sandbench-criu; or scripts/setup.sh --with criu)';

/** Version policy alone (pure, for tests and doctor). */
export function criuVerdict(version: string): { usable: boolean; reason?: string } {
  const match = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(version);
  if (!match) return { usable: false, reason: `unrecognised CRIU version "${version}"` };
  const [major, minor] = [Number(match[1]), Number(match[2])];
  if (major < 4) return { usable: false, reason: `CRIU ${version} fails every dump on kernels >= 6.13 ("vdso: Unexpected rt vDSO area bounds"); need >= 4.2` };
  if (major === 4 && minor < 2) return { usable: false, reason: `CRIU ${version} fails on any AF_INET socket on kernels >= 6.16 ("Can't get 1:16 opt: Operation not supported"); need >= 4.2` };
  return { usable: true };
}

export function parseCriuVersion(output: string): string | null {
  return /^Version:\s*(\S+)/m.exec(output)?.[1] ?? null;
}

export async function probeCriu(): Promise<CriuProbe> {
  const built = join(criuPrefix(), 'sbin', 'criu');
  const basePath = process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin';
  const candidates = existsSync(built) ? [built] : ['criu'];
  for (const candidate of candidates) {
    const result = await execa(candidate, ['--version'], { reject: false, timeout: 10_000 });
    if (result.exitCode !== 0) continue;
    const version = parseCriuVersion(result.stdout);
    const path = candidate === 'criu' ? ((await execa('sh', ['-c', 'command -v criu'], { reject: false })).stdout.trim() || 'criu') : candidate;
    const pathEnv = candidate === built ? `${join(criuPrefix(), 'sbin')}:${basePath}` : basePath;
    if (!version) return { path, version: null, usable: false, reason: `cannot read the version of ${path}`, fix: FIX, pathEnv };
    const verdict = criuVerdict(version);
    return { path, version, usable: verdict.usable, ...(verdict.reason ? { reason: verdict.reason, fix: FIX } : {}), pathEnv };
  }
  return { path: null, version: null, usable: false, reason: 'CRIU is not installed', fix: FIX, pathEnv: basePath };
}

/** `doctor`'s CRIU line: the version in use, or why checkpoints are refused (3.x and 4.1 here). */
export function criuDoctorLine(probe: CriuProbe): string {
  const name = 'criu'.padEnd(13);
  if (probe.usable) return `ok    ${name} ${probe.version} (${probe.path}; first in PATH for podman/runc checkpoints)`;
  const found = probe.version ? `${probe.version} at ${probe.path} refused: ` : '';
  return `--    ${name} ${found}${probe.reason}${probe.fix ? ` — fix: ${probe.fix}` : ''}`;
}
