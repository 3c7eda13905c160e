/**
 * Where the native launcher binary is, building it with the system C compiler when it is missing
 * or older than its source (scripts/setup.sh does the same at install time). No compiler and no
 * binary → the Node spawn path, with the reason recorded.
 *
 * Environment:
 *   SANDBENCH_TIMING_PATH=node   force the Node fallback (the conformance suite runs once this way)
 *   SANDBENCH_LAUNCHER_BIN=PATH  use this prebuilt launcher instead of launcher/build/
 *   CC                           compiler to build with (default cc)
 */
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

// From the project root, not this module's URL: the bundled CLI (dist/) runs this code from elsewhere.
export const LAUNCHER_SOURCE = join(PROJECT_ROOT, 'launcher', 'sandbench-launch.c');
export const LAUNCHER_BUILD = join(dirname(LAUNCHER_SOURCE), 'build', 'sandbench-launch');
export const CFLAGS = ['-O2', '-Wall', '-std=gnu11'];

export type LauncherBinary = { ok: true; path: string; built: boolean } | { ok: false; reason: string };

/** Forced fallback, for runs and tests that must exercise the Node path. */
export function nodePathForced(): boolean {
  return process.env.SANDBENCH_TIMING_PATH === 'node';
}

const newerThan = (a: string, b: string) => statSync(a).mtimeMs > statSync(b).mtimeMs;

export async function buildLauncher(output = LAUNCHER_BUILD): Promise<LauncherBinary> {
  if (!existsSync(LAUNCHER_SOURCE)) return { ok: false, reason: `launcher source ${LAUNCHER_SOURCE} is missing` };
  const cc = process.env.CC ?? 'cc';
  mkdirSync(dirname(output), { recursive: true });
  // Build under a private name and rename: parallel test workers may build at the same moment.
  const temporary = `${output}.${process.pid}.tmp`;
  const result = await execa(cc, [...CFLAGS, '-o', temporary, LAUNCHER_SOURCE], { reject: false });
  if (result.failed) {
    const why = result.code === 'ENOENT' ? `no C compiler (${cc}) on PATH` : `${cc} failed: ${String(result.stderr).trim().split('\n').slice(0, 3).join(' | ')}`;
    return { ok: false, reason: why };
  }
  renameSync(temporary, output);
  return { ok: true, path: output, built: true };
}

export async function locateLauncher(): Promise<LauncherBinary> {
  const explicit = process.env.SANDBENCH_LAUNCHER_BIN;
  if (explicit) return existsSync(explicit) ? { ok: true, path: explicit, built: false } : { ok: false, reason: `SANDBENCH_LAUNCHER_BIN=${explicit} does not exist` };
  if (existsSync(LAUNCHER_BUILD) && (!existsSync(LAUNCHER_SOURCE) || !newerThan(LAUNCHER_SOURCE, LAUNCHER_BUILD))) {
    return { ok: true, path: LAUNCHER_BUILD, built: false };
  }
  return buildLauncher();
}
