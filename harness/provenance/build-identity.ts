/**
 * The identity of an arm's build binaries (harness/spec/arm-build.ts) as probe details: path, sha256
 * of the file and the first line of `<binary> --version` when it answers. Keys carry the
 * BUILD_DETAIL_PREFIX, so the comparability fingerprint reads them as the arm's intended
 * difference, never as "environment differs".
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import { BUILD_BINARY_FIELDS, BUILD_DETAIL_PREFIX, type ArmBuild } from '../spec/arm-build.ts';

export function fileSha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** First output line of `<path> --version`, or null (a wrapper script need not answer). */
async function versionLine(path: string): Promise<string | null> {
  const result = await execa(path, ['--version'], { reject: false, timeout: 10_000, stdin: 'ignore' });
  const line = `${result.stdout}\n${result.stderr}`.trim().split('\n')[0]?.trim();
  return result.exitCode === 0 && line ? line : null;
}

/** `build_<field>`, `build_<field>_sha256`, `build_<field>_version` for every binary field of the build. */
export async function buildBinaryDetails(build: ArmBuild | undefined, options: { versions?: boolean } = {}): Promise<Record<string, string>> {
  const details: Record<string, string> = {};
  if (!build) return details;
  for (const field of BUILD_BINARY_FIELDS) {
    const path = build[field];
    if (path === undefined) continue;
    details[`${BUILD_DETAIL_PREFIX}${field}`] = path;
    details[`${BUILD_DETAIL_PREFIX}${field}_sha256`] = `sha256:${fileSha256(path)}`;
    // A wrapper is a shim, not a tool with a version; asking it would run `--version` under it.
    const version = options.versions === false || field === 'wrapper' ? null : await versionLine(path);
    if (version) details[`${BUILD_DETAIL_PREFIX}${field}_version`] = version;
  }
  return details;
}

/** Only the build_* details (the arm's build), or only the others (the backend's identity). */
export function splitBuildDetails(details: Record<string, string>): { build: Record<string, string>; backend: Record<string, string> } {
  const build: Record<string, string> = {};
  const backend: Record<string, string> = {};
  for (const [key, value] of Object.entries(details)) (key.startsWith(BUILD_DETAIL_PREFIX) ? build : backend)[key] = value;
  return { build, backend };
}
