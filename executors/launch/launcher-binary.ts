/**
 * Where the native launcher binary is, building it with the system C compiler on first use. The
 * build lives under $SANDBENCH_HOME (launcher/<digest>/), never in the package: an installed
 * package's directory may be read-only, and a digest of the source and flags names the build, so
 * a changed source is a new directory rather than an mtime comparison (an npm tarball stamps every
 * file with the same 1985 date). No compiler and no binary → the Node spawn path, with the reason
 * recorded.
 *
 * Environment:
 *   SANDBENCH_TIMING_PATH=node   force the Node fallback (the conformance suite runs once this way)
 *   SANDBENCH_LAUNCHER_BIN=PATH  use this prebuilt launcher instead of the cached build
 *   CC                           compiler to build with (default cc)
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT, stateDir } from '../../harness/state-dir.ts';

// From the project root, not this module's URL: the bundled CLI (dist/) runs this code from elsewhere.
export const LAUNCHER_SOURCE = join(PROJECT_ROOT, 'launcher', 'sandbench-launch.c');
export const CFLAGS = ['-O2', '-Wall', '-std=gnu11'];

export type LauncherBinary = { ok: true; path: string; built: boolean } | { ok: false; reason: string };

/** Forced fallback, for runs and tests that must exercise the Node path. */
export function nodePathForced(): boolean {
  return process.env.SANDBENCH_TIMING_PATH === 'node';
}

/** The cached build's path for the current source and flags: `$SANDBENCH_HOME/launcher/<digest>/sandbench-launch`. */
export function launcherBuildPath(source = LAUNCHER_SOURCE): string {
  const digest = createHash('sha256').update(CFLAGS.join(' ')).update('\0').update(readFileSync(source)).digest('hex').slice(0, 16);
  return join(stateDir(), 'launcher', digest, 'sandbench-launch');
}

export async function buildLauncher(output?: string): Promise<LauncherBinary> {
  if (!existsSync(LAUNCHER_SOURCE)) return { ok: false, reason: `launcher source ${LAUNCHER_SOURCE} is missing` };
  const target = output ?? launcherBuildPath();
  const cc = process.env.CC ?? 'cc';
  mkdirSync(dirname(target), { recursive: true });
  // Build under a private name and rename: parallel test workers may build at the same moment.
  const temporary = `${target}.${process.pid}.tmp`;
  const result = await execa(cc, [...CFLAGS, '-o', temporary, LAUNCHER_SOURCE], { reject: false });
  if (result.failed) {
    const why = result.code === 'ENOENT' ? `no C compiler (${cc}) on PATH` : `${cc} failed: ${String(result.stderr).trim().split('\n').slice(0, 3).join(' | ')}`;
    return { ok: false, reason: why };
  }
  renameSync(temporary, target);
  return { ok: true, path: target, built: true };
}

export async function locateLauncher(): Promise<LauncherBinary> {
  const explicit = process.env.SANDBENCH_LAUNCHER_BIN;
  if (explicit) return existsSync(explicit) ? { ok: true, path: explicit, built: false } : { ok: false, reason: `SANDBENCH_LAUNCHER_BIN=${explicit} does not exist` };
  if (!existsSync(LAUNCHER_SOURCE)) return { ok: false, reason: `launcher source ${LAUNCHER_SOURCE} is missing` };
  const cached = launcherBuildPath();
  return existsSync(cached) ? { ok: true, path: cached, built: false } : buildLauncher(cached);
}
