/**
 * What an arm ran that is its own (`arms[i].build`, harness/spec/arm-build.ts), read back from
 * environment.json's `arms` section: binary paths with sha256 and version, and the arm's image
 * digest. compare and gate print it so a reader sees exactly what differed between the two sides,
 * and a backend whose arms carry builds is the intended difference, not "environment differs".
 */
import type { Bundle } from '../../harness/bundle/read.ts';
import { BUILD_BINARY_FIELDS, BUILD_DETAIL_PREFIX } from '../../harness/spec/arm-build.ts';
import type { FingerprintCheck, FingerprintDifference } from './environment.ts';

export interface ArmBuildFacts {
  /** field → path, sha256, version (each may be absent). */
  binaries: Partial<Record<(typeof BUILD_BINARY_FIELDS)[number], { path: string; sha256: string | null; version: string | null }>>;
  /** The arm's image digest when it is not the run's image (build.image). */
  image: string | null;
}

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);
const text = (v: Json): string | null => (typeof v === 'string' ? v : null);

/** The arm's build facts, or null when it declared none (or the bundle predates `arms`). */
export function armBuildFacts(bundle: Pick<Bundle, 'environment'>, arm: string): ArmBuildFacts | null {
  const env = bundle.environment;
  const arms = env && isObject(env.arms) ? env.arms : null;
  const entry = arms && isObject(arms[arm]) ? arms[arm] : null;
  if (!entry) return null;
  const build = isObject(entry.build) ? entry.build : {};
  const binaries: ArmBuildFacts['binaries'] = {};
  for (const field of BUILD_BINARY_FIELDS) {
    const path = text(build[`${BUILD_DETAIL_PREFIX}${field}`]);
    if (path) binaries[field] = { path, sha256: text(build[`${BUILD_DETAIL_PREFIX}${field}_sha256`]), version: text(build[`${BUILD_DETAIL_PREFIX}${field}_version`]) };
  }
  const runImage = isObject(env!.image) ? text(env!.image.digest) : null;
  const armImage = text(entry.image_digest);
  const image = armImage && armImage !== runImage ? armImage : null;
  return Object.keys(binaries).length > 0 || image ? { binaries, image } : null;
}

const short = (sha: string | null) => (sha ? `${sha.replace(/^sha256:/, 'sha256:').slice(0, 19)}…` : 'sha256 not recorded');

export function describeBuild(facts: ArmBuildFacts | null): string {
  if (!facts) return 'no build of its own (the backend defaults)';
  const parts = Object.entries(facts.binaries).map(([field, b]) => `${field} ${b!.path} (${[short(b!.sha256), b!.version].filter(Boolean).join(', ')})`);
  if (facts.image) parts.push(`image ${short(facts.image)}`);
  return parts.join('; ');
}

/** One line per differing build element between two arms' facts; empty when identical. */
export function buildDifferences(a: ArmBuildFacts | null, b: ArmBuildFacts | null): string[] {
  const out: string[] = [];
  for (const field of BUILD_BINARY_FIELDS) {
    const x = a?.binaries[field];
    const y = b?.binaries[field];
    if (!x && !y) continue;
    if (!x || !y) out.push(`${field}: ${x ? x.path : 'backend default'} → ${y ? y.path : 'backend default'}`);
    else if (x.sha256 !== y.sha256) out.push(`${field}: ${x.path} (${short(x.sha256)}) → ${y.path} (${short(y.sha256)})`);
    else if (x.path !== y.path) out.push(`${field}: ${x.path} → ${y.path}, byte-identical (same sha256: an A/A pair)`);
  }
  if ((a?.image ?? null) !== (b?.image ?? null)) out.push(`image: ${a?.image ? short(a.image) : 'the run image'} → ${b?.image ? short(b.image) : 'the run image'}`);
  return out;
}

/** The interleaved gate's account of its two sides: each arm's build, then what differs between them. */
export function interleavedBuildLines(bundle: Pick<Bundle, 'environment' | 'resolved'>, baselineArm: string, candidateArm: string): string[] {
  const a = armBuildFacts(bundle, baselineArm);
  const b = armBuildFacts(bundle, candidateArm);
  if (!a && !b) return [];
  const backendOf = (label: string) => label.split(':')[0];
  const lines = [`baseline arm ${baselineArm}: ${describeBuild(a)}`, `candidate arm ${candidateArm}: ${describeBuild(b)}`];
  const differs = buildDifferences(a, b);
  lines.push(differs.length > 0 ? `the arms differ in build: ${differs.join('; ')}` : 'the arms run identical builds (an A/A pair)');
  if (backendOf(baselineArm) !== backendOf(candidateArm)) lines.push(`the arms also differ in backend (${backendOf(baselineArm)} vs ${backendOf(candidateArm)}): not a build-only comparison`);
  return lines;
}

/** Cross-run: per shared arm whose build changed between the bundles, what changed (the intended difference). */
export function crossRunBuildLines(baseline: Pick<Bundle, 'environment'>, candidate: Pick<Bundle, 'environment'>, arms: readonly string[]): string[] {
  return arms.flatMap((arm) => {
    const differs = buildDifferences(armBuildFacts(baseline, arm), armBuildFacts(candidate, arm));
    return differs.length > 0 ? [`arm ${arm} build changed between the runs (the intended difference): ${differs.join('; ')}`] : [];
  });
}

/**
 * A `backend X` fingerprint difference is intended when an arm of backend X carries a build in
 * either bundle (build.pvisor changes the pvisor version): moved from `differences` to `intended`.
 */
export function separateIntended(check: FingerprintCheck, baseline: Pick<Bundle, 'environment'>, candidate: Pick<Bundle, 'environment'>, arms: readonly string[]): FingerprintCheck & { intended: FingerprintDifference[] } {
  const built = new Set(arms.filter((arm) => armBuildFacts(baseline, arm) || armBuildFacts(candidate, arm)).map((arm) => `backend ${arm.split(':')[0]}`));
  return {
    ...check,
    differences: check.differences.filter((d) => !built.has(d.key)),
    intended: check.differences.filter((d) => built.has(d.key)),
  };
}
