/**
 * `sandbench merge`: shard bundles of one plan → one verifiable bundle. The journal is the union of
 * the shards' journals with the host stamped on every trial (facts.fleet_host/fleet_shard), plan.json
 * is the reassembled parent plan, the ordinary analysis files are written as for one run, and the
 * host-as-a-block files (per-host-summary.csv, fleet-comparisons.csv) beside them.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { analyzeBundle } from '../analyze/index.ts';
import { latestPerTrial } from '../analyze/arm-metric.ts';
import type { TrialRecord } from '../journal/trial-record.ts';
import { serializePlan } from '../plan/plan.ts';
import { harnessRevision } from '../provenance/host-facts.ts';
import { distinctRevisions } from '../provenance/invocations.ts';
import { writeManifest } from '../provenance/manifest.ts';
import { prepareBundleDir } from '../run/bundle-dir.ts';
import type { ReportWiring } from '../contracts/wiring.ts';
import { checkShards } from './check-shards.ts';
import { analyzeFleet, HOST_FACT, SHARD_FACT } from './fleet-analysis.ts';
import { hostKey } from './host-identity.ts';
import { readShardBundle, type ShardBundle } from './shard-bundle.ts';

export const FLEET_RECORD_FILE = BUNDLE_FILES.fleet;

export interface MergeResult {
  bundleDir: string;
  runId: string;
  hosts: string[];
  trials: number;
}

/** Deterministic: the same shards always merge to the same id (and the same bytes). */
function mergedRunId(specName: string, parentDigest: string, shards: readonly ShardBundle[]): string {
  const hash = createHash('sha256').update([parentDigest, ...shards.map((s) => s.resolved.run_id)].join('\n')).digest('hex').slice(0, 12);
  const slug = specName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24);
  return `fleet-${slug}-${hash}`;
}

function stampedRecords(shards: readonly ShardBundle[]): TrialRecord[] {
  const records = shards.flatMap((shard) => {
    const host = hostKey(shard.plan.shard.host);
    return latestPerTrial(shard.records).map((r) => ({ ...r, facts: { ...r.facts, [HOST_FACT]: host, [SHARD_FACT]: shard.plan.shard.index } }));
  });
  return records.sort((a, b) => a.position - b.position);
}

/** One value per tool when the shards agree, else every distinct value (a fleet may mix versions; say so). */
function toolVersions(shards: readonly ShardBundle[]): Record<string, string> {
  const values = new Map<string, Set<string>>();
  for (const shard of shards) for (const [tool, version] of Object.entries(shard.manifest.tool_versions)) (values.get(tool) ?? values.set(tool, new Set()).get(tool)!).add(version);
  return Object.fromEntries([...values.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([tool, set]) => [tool, [...set].sort().join(' | ')]));
}

function fleetRecord(parentDigest: string, shards: readonly ShardBundle[]) {
  const hosts = [...new Set(shards.map((s) => hostKey(s.plan.shard.host)))].sort();
  return {
    schema_version: 1,
    parent_plan_digest: parentDigest,
    analysis:
      hosts.length > 1
        ? 'several hosts: read per-host-summary.csv and fleet-comparisons.csv; summary.csv and comparisons.csv pool every host\'s trials and are not fleet estimates'
        : 'one host: summary.csv and comparisons.csv are this host\'s, as for one run',
    shard_count: shards.length,
    hosts: hosts.map((key) => ({ key, shards: shards.filter((s) => hostKey(s.plan.shard.host) === key).map((s) => s.plan.shard.index) })),
    shards: shards.map((s) => ({
      index: s.plan.shard.index,
      run_id: s.resolved.run_id,
      host_key: hostKey(s.plan.shard.host),
      host: s.plan.shard.host,
      trials: s.plan.trials.length,
      harness_commit: s.manifest.harness_commit,
      manifest_sha256: createHash('sha256').update(s.provenance.get(BUNDLE_FILES.manifest) ?? '').digest('hex'),
    })),
  };
}

/** `renderReport` writes the bundle's reports (report.html/md and fleet-report.md: the reports layer, from cli/wiring.ts). */
export async function mergeShards(dirs: readonly string[], out: string, reporting: ReportWiring, log: (message: string) => void = () => {}): Promise<MergeResult> {
  const { ordered, plan } = checkShards(dirs.map(readShardBundle));
  const first = ordered[0]!;
  const parentDigest = first.plan.shard.parent_plan_digest;
  const runId = mergedRunId(first.resolved.spec.name, parentDigest, ordered);
  const bundleDir = resolve(out);
  prepareBundleDir(bundleDir, { allowExisting: false });

  const records = stampedRecords(ordered);
  const fleet = fleetRecord(parentDigest, ordered);
  writeFileSync(join(bundleDir, BUNDLE_FILES.spec), first.specText);
  writeFileSync(join(bundleDir, BUNDLE_FILES.resolvedSpec), `${JSON.stringify({ ...first.resolved, run_id: runId }, null, 2)}\n`);
  writeFileSync(join(bundleDir, BUNDLE_FILES.plan), serializePlan(plan));
  writeFileSync(join(bundleDir, BUNDLE_FILES.journal), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  writeFileSync(join(bundleDir, FLEET_RECORD_FILE), `${JSON.stringify(fleet, null, 2)}\n`);
  // One host: its environment is the bundle's (compare/gate read it). Several hosts: no single
  // environment exists, so none is claimed; each shard's own is kept under shards/<index>/.
  if (fleet.hosts.length === 1 && first.provenance.has(BUNDLE_FILES.environment)) writeFileSync(join(bundleDir, BUNDLE_FILES.environment), first.provenance.get(BUNDLE_FILES.environment)!);
  for (const shard of ordered) {
    const dir = join(bundleDir, 'shards', String(shard.plan.shard.index));
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of shard.provenance) writeFileSync(join(dir, file), text);
  }

  const analyzed = analyzeBundle(bundleDir, reporting.kinds);
  const fleetFiles = analyzeFleet({ resolved: { ...first.resolved, run_id: runId }, records });
  for (const [name, content] of fleetFiles) writeFileSync(join(bundleDir, name), content);
  try {
    reporting.renderReport(analyzed);
  } catch (error) {
    // As in finalize-bundle: a rendering bug must not cost the merged data.
    log(`report rendering failed: ${error instanceof Error ? error.message : error}`);
  }
  const revision = await harnessRevision();
  const resumeCount = ordered.reduce((sum, s) => sum + s.manifest.resume_count, 0);
  writeManifest(bundleDir, {
    run_id: runId,
    spec_sha256: first.resolved.spec_sha256,
    seed: first.resolved.spec.seed,
    harness_commit: revision.commit,
    harness_dirty: revision.dirty,
    // every shard's revisions, then the merging one (a shard may have been resumed under another commit)
    harness_commits: distinctRevisions([...ordered.flatMap((shard) => shard.manifest.harness_commits ?? []), revision]),
    tool_versions: toolVersions(ordered),
    image_digests: { ...first.manifest.image_digests },
    resumed: resumeCount > 0,
    resume_count: resumeCount,
    complete: ordered.every((s) => s.manifest.complete),
  });
  if (fleet.hosts.length > 1) log(`${fleet.hosts.length} hosts: per-host-summary.csv and fleet-comparisons.csv hold the host-blocked figures; summary.csv and comparisons.csv pool hosts`);
  return { bundleDir, runId, hosts: fleet.hosts.map((h) => h.key), trials: records.length };
}
