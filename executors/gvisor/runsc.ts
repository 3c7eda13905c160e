/**
 * The runsc command line as the gvisor backend drives it: which binary, which platform, the run's
 * own state root, container names `clean` can read a run id from, and the teardown commands.
 * No daemon: every trial is one `runsc run` the launcher spawns; state lives in a root directory
 * below the run's state dir (never runsc's system default /var/run/runsc).
 */
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';

/** Platforms this adapter knows how to ask for; the binary says which it accepts (`runsc help platforms`). */
export const GVISOR_PLATFORMS = ['ptrace', 'systrap', 'kvm'] as const;
export type GvisorPlatform = (typeof GVISOR_PLATFORMS)[number];
export const DEFAULT_PLATFORM: GvisorPlatform = 'ptrace';
export const PLATFORM_ENV = 'SANDBENCH_GVISOR_PLATFORM';

/** Where a platform choice came from, for the probe's details. */
export interface PlatformChoice {
  platform: string;
  source: 'variant' | 'env' | 'default';
}

/** The arm's variant names a platform when it is one; else SANDBENCH_GVISOR_PLATFORM; else ptrace. */
export function choosePlatform(variant: string | null, env: NodeJS.ProcessEnv = process.env): PlatformChoice {
  if (variant) return { platform: variant, source: 'variant' };
  const fromEnv = env[PLATFORM_ENV]?.trim();
  if (fromEnv) return { platform: fromEnv, source: 'env' };
  return { platform: DEFAULT_PLATFORM, source: 'default' };
}

/** The platforms a runsc binary lists (`runsc help platforms`: one name a line). */
export async function acceptedPlatforms(binary: string): Promise<string[]> {
  const result = await execa(binary, ['help', 'platforms'], { reject: false, timeout: 10_000, stdin: 'ignore' });
  return `${result.stdout}\n${result.stderr}`
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^[a-z][a-z0-9]*$/.test(line));
}

/** A binary name resolved on PATH (a path is returned as is); null when not found. */
export function resolveBinary(name: string, path: string = process.env.PATH ?? ''): string | null {
  if (name.includes('/')) return existsSync(name) ? name : null;
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * Global flags every runsc call of one run carries (state root, platform, no network, as root).
 * `ignoreCgroups`: without it runsc moves the sandbox into a cgroup of its own (`/<container id>`)
 * even when the spec names none, which takes it out of the cgroups the launcher put it in (a
 * density budget); so every launch without a memory limit of its own passes --ignore-cgroups.
 */
export function globalFlags(root: string, platform: string, options: { hostUds?: boolean; ignoreCgroups?: boolean } = {}): string[] {
  return [
    `--root=${root}`,
    `--platform=${platform}`,
    '--network=none',
    '--rootless=false',
    ...(options.hostUds ? ['--host-uds=open'] : []),
    ...(options.ignoreCgroups ? ['--ignore-cgroups'] : []),
  ];
}

/** Directory holding every run's runsc root: `<stateDir>/runsc`. */
export function runscRootsDir(stateDir: string): string {
  return join(stateDir, 'runsc');
}

/** One run's runsc root; named `sandbench-<runId>` so `clean` reads the run id from it. */
export function runscRoot(stateDir: string, runId: string): string {
  return join(runscRootsDir(stateDir), `sandbench-${runId}`);
}

/** Container ids: runsc accepts [\w+.-]; the name carries `sandbench-<runId>-<trial>`. */
export function containerName(runId: string, trialId: string): string {
  return `sandbench-${runId}-${trialId}`.replace(/[^\w+.-]/g, '_');
}

/** Container ids in one root (`runsc list --quiet`); [] when the root or runsc is missing. */
export async function listContainers(binary: string, root: string): Promise<string[]> {
  if (!existsSync(root)) return [];
  const result = await execa(binary, [`--root=${root}`, 'list', '--quiet'], { reject: false, timeout: 30_000, stdin: 'ignore' });
  if (result.exitCode !== 0) return [];
  return result.stdout.split('\n').map((line) => line.trim()).filter(Boolean);
}

/**
 * Kill and delete one container: `runsc delete --force` kills its sandbox and gofer, removes its
 * state and any cgroup runsc made for it. Idempotent: a container that is gone is success.
 */
export async function deleteContainer(binary: string, root: string, name: string): Promise<void> {
  if (!existsSync(root)) return;
  const result = await execa(binary, [`--root=${root}`, 'delete', '--force', name], { reject: false, timeout: 60_000, stdin: 'ignore' });
  if (result.exitCode === 0) return;
  if (!(await listContainers(binary, root)).includes(name)) return;
  throw new Error(`runsc delete --force ${name}: ${(result.stderr || result.stdout).trim().split('\n').pop() ?? `exit ${result.exitCode}`}`);
}

/** Every run root below `<stateDir>/runsc` (for the leftover finder). */
export function runRoots(stateDir: string): string[] {
  const dir = runscRootsDir(stateDir);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((name) => name.startsWith('sandbench-')).map((name) => join(dir, name));
}
