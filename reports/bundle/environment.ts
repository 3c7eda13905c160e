/**
 * Host facts from environment.json (written by harness/provenance; its shape is not ours, so every
 * lookup here is defensive) and the comparability fingerprint compare and gate check: CPU model,
 * kernel, backend versions, image digest and controls. Two bundles are comparable only when these agree.
 */
import type { Bundle } from '../../harness/bundle/read.ts';
import { MEASURED_DETAIL_KEYS } from '../../harness/contracts/executor.ts';

type Json = unknown;

function isObject(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function primitive(value: Json): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

/** Every primitive leaf as [dotted.path, text], depth-first in key order (arrays by index), up to `maxDepth`. */
export function flattenFacts(value: Json, maxDepth = 4, prefix = ''): [string, string][] {
  const out: [string, string][] = [];
  const visit = (node: Json, path: string, depth: number) => {
    const text = primitive(node);
    if (text !== null) {
      out.push([path, text]);
      return;
    }
    if (depth >= maxDepth) return;
    if (Array.isArray(node)) node.forEach((child, i) => visit(child, path ? `${path}.${i}` : String(i), depth + 1));
    else if (isObject(node)) for (const key of Object.keys(node).sort()) visit(node[key], path ? `${path}.${key}` : key, depth + 1);
  };
  visit(value, prefix, 0);
  return out;
}

/** First fact whose last path segment is one of `names` (in the order of `names`, then shallowest path). */
export function findFact(facts: readonly [string, string][], names: readonly string[]): string | null {
  return findFactEntry(facts, names)?.[1] ?? null;
}

/** Like findFact, with the dotted path the value was found at. */
export function findFactEntry(facts: readonly [string, string][], names: readonly string[]): [string, string] | null {
  for (const name of names) {
    const hits = facts.filter(([path]) => path.split('.').at(-1)?.toLowerCase() === name.toLowerCase());
    hits.sort((a, b) => a[0].split('.').length - b[0].split('.').length || a[0].localeCompare(b[0]));
    if (hits[0]) return hits[0];
  }
  return null;
}

/**
 * Version of a backend from whatever probe layout environment.json uses: a map keyed by backend or a
 * list of {backend, version}. `identity` leaves out measured details (the launcher's floor), for
 * the comparability fingerprint: two runs of one build always measure a slightly different floor.
 */
export function backendVersion(environment: Record<string, Json> | null, backend: string, options: { identity?: boolean } = {}): string | null {
  if (!environment) return null;
  const candidates: Json[] = [];
  const walk = (node: Json, depth: number) => {
    if (depth > 4) return;
    if (Array.isArray(node)) node.forEach((child) => walk(child, depth + 1));
    else if (isObject(node)) {
      if (node.backend === backend && 'version' in node) candidates.push(node);
      for (const [key, child] of Object.entries(node)) {
        if (key === backend && isObject(child) && ('version' in child || 'available' in child)) candidates.push(child);
        walk(child, depth + 1);
      }
    }
  };
  walk(environment, 0);
  for (const candidate of candidates) {
    if (!isObject(candidate)) continue;
    const version = primitive(candidate.version);
    const details = isObject(candidate.details)
      ? Object.keys(candidate.details)
          .filter((k) => !options.identity || !MEASURED_DETAIL_KEYS.includes(k))
          .sort()
          .map((k) => `${k}=${primitive((candidate.details as Record<string, Json>)[k]) ?? ''}`)
          .join(' ')
      : '';
    if (version !== null || details) return [version ?? 'unknown', details].filter(Boolean).join('; ');
    if (candidate.available === false) return `unavailable${primitive(candidate.reason) ? `: ${primitive(candidate.reason)}` : ''}`;
  }
  return null;
}

/** Image digests named anywhere in environment.json or manifest.json under an image-ish path (plan and file hashes excluded). */
export function imageDigests(bundle: Pick<Bundle, 'environment' | 'manifest'>): string | null {
  const facts = [...flattenFacts(bundle.environment ?? {}, 6), ...flattenFacts(bundle.manifest ?? {}, 6)];
  const digests = new Set<string>();
  for (const [path, value] of facts) {
    const segments = path.toLowerCase().split('.');
    const last = segments.at(-1) ?? '';
    if (!/digest/.test(last) && !/digest/.test(segments.at(-2) ?? '')) continue;
    if (!segments.some((s) => s.includes('image') || s.includes('rootfs'))) continue;
    if (/^sha256:[0-9a-f]{8,}$/i.test(value) || /^[0-9a-f]{64}$/i.test(value)) digests.add(value);
  }
  return digests.size > 0 ? [...digests].sort().join(' ') : null;
}

export interface Fingerprint {
  /** Declared key → value (null = not recorded in this bundle). */
  values: Record<string, string | null>;
}

/**
 * The declared comparability keys of one bundle for a set of backends. environment.json's own
 * `fingerprint` section (harness/provenance) declares the scalar keys (CPU model, kernel, cores,
 * image digest, accelerator); backend versions count only for the backends the arms use (an
 * unrelated tool upgrade must not block a comparison); the spec's controls are always compared.
 * Without a fingerprint section, the same facts are looked up anywhere in the file.
 */
export function fingerprint(bundle: Bundle, backends: readonly string[]): Fingerprint {
  const facts = flattenFacts(bundle.environment ?? {}, 5);
  const declared = bundle.environment && isObject(bundle.environment.fingerprint) ? bundle.environment.fingerprint : null;
  const values: Record<string, string | null> = {};
  if (declared) {
    for (const key of Object.keys(declared).sort()) {
      const text = primitive(declared[key]);
      if (text !== null) values[key] = text;
    }
  } else {
    values.cpu_model = findFact(facts, ['cpu_model', 'model_name', 'cpu']);
    values.kernel = findFact(facts, ['kernel', 'kernel_release', 'release', 'uname_r']);
    values.image_digest = imageDigests(bundle);
  }
  values.controls = JSON.stringify(sortKeys(bundle.resolved.spec.controls ?? {}));
  for (const backend of [...new Set(backends)].sort()) values[`backend ${backend}`] = backendVersion(bundle.environment, backend, { identity: true });
  return { values };
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  return value;
}

export interface FingerprintDifference {
  key: string;
  baseline: string | null;
  candidate: string | null;
}

export interface FingerprintCheck {
  differences: FingerprintDifference[];
  /** Keys neither bundle recorded: not a refusal, but the comparison cannot be verified on them. */
  unverified: string[];
}

/** A key differs when the values differ or only one bundle recorded it; absent on both sides is "unverified". */
export function compareFingerprints(baseline: Fingerprint, candidate: Fingerprint): FingerprintCheck {
  const keys = [...new Set([...Object.keys(baseline.values), ...Object.keys(candidate.values)])].sort();
  const differences: FingerprintDifference[] = [];
  const unverified: string[] = [];
  for (const key of keys) {
    const a = baseline.values[key] ?? null;
    const b = candidate.values[key] ?? null;
    if (a === null && b === null) unverified.push(key);
    else if (a !== b) differences.push({ key, baseline: a, candidate: b });
  }
  return { differences, unverified };
}

/** Backends of the arms in a bundle's spec. */
export function bundleBackends(bundle: Bundle): string[] {
  return bundle.resolved.spec.arms.map((a) => a.backend);
}

/** A short, ordered summary of host facts for the report. */
export function environmentSummary(bundle: Bundle): [string, string][] {
  const facts = flattenFacts(bundle.environment ?? {}, 5);
  const wanted: [string, string[]][] = [
    ['kernel', ['kernel', 'kernel_release', 'release']],
    ['CPU model', ['cpu_model', 'model_name']],
    ['cores', ['cores', 'cpu_count', 'nproc', 'cpus']],
    ['memory', ['memory', 'memory_total', 'mem_total', 'memory_mib', 'memory_bytes']],
    ['cgroup', ['cgroup', 'cgroup_version', 'cgroup_mode']],
    ['accelerator', ['accelerator']],
    ['harness commit', ['git_commit', 'commit', 'harness_commit']],
    ['dirty tree', ['dirty', 'git_dirty']],
  ];
  const out: [string, string][] = [];
  for (const [label, names] of wanted) {
    const entry = findFactEntry(facts, names);
    if (entry) out.push([`${label} (${entry[0]})`, entry[1]]);
  }
  for (const backend of [...new Set(bundleBackends(bundle))]) {
    const version = backendVersion(bundle.environment, backend);
    out.push([`backend ${backend}`, version ?? 'not recorded']);
  }
  out.push(['image digest', imageDigests(bundle) ?? 'not recorded']);
  return out;
}
