/**
 * Whether shard bundles are the pieces of one campaign: the same parent plan (digest), the same
 * resolved spec, the same task image, every shard index once, blocks disjoint and owned by the
 * right shard, the reassembled plan hashing to the parent digest, and every planned trial journaled.
 * The first failed check refuses the merge (exit 3) naming the mismatch and the bundles involved.
 */
import { UserError } from '../errors.ts';
import { latestPerTrial } from '../analyze/arm-metric.ts';
import { planDigest, type Plan } from '../plan/plan.ts';
import { MERGE_REFUSED, type ShardBundle } from './shard-bundle.ts';
import { reassemblePlan, shardOfBlock } from './shard-plan.ts';

function refuse(message: string): never {
  throw new UserError(`merge refused: ${message}`, MERGE_REFUSED);
}

function label(shard: ShardBundle): string {
  return `${shard.dir} (shard ${shard.plan.shard.index}/${shard.plan.shard.count})`;
}

/** Resolved-spec fields that must agree (run_id differs per shard by design). */
const RESOLVED_KEYS = ['spec_sha256', 'overrides', 'skipped_arms', 'plan_arms', 'spec'] as const;

function sameParent(shards: readonly ShardBundle[]): void {
  const [first, ...rest] = shards as [ShardBundle, ...ShardBundle[]];
  for (const other of rest) {
    if (other.plan.shard.parent_plan_digest === first.plan.shard.parent_plan_digest) continue;
    // Say which input differs, so the user knows whether it was the spec, an override or a skipped arm.
    const why = RESOLVED_KEYS.filter((key) => JSON.stringify(first.resolved[key]) !== JSON.stringify(other.resolved[key]));
    refuse(`parent plan digest differs: ${label(first)} has ${first.plan.shard.parent_plan_digest}, ${label(other)} has ${other.plan.shard.parent_plan_digest}` +
      (why.length > 0 ? ` (resolved-spec.json differs in ${why.join(', ')})` : '') + ' — these shards come from different plans');
  }
  for (const other of rest) {
    const key = RESOLVED_KEYS.find((k) => JSON.stringify(first.resolved[k]) !== JSON.stringify(other.resolved[k]));
    if (key) refuse(`resolved-spec.json ${key} differs between ${label(first)} and ${label(other)}`);
    const image = (s: ShardBundle) => s.manifest.image_digests['task'] ?? null;
    if (image(first) !== image(other)) refuse(`task image digest differs: ${label(first)} ran ${image(first)}, ${label(other)} ran ${image(other)} — every host must run the same image`);
  }
}

function everyIndexOnce(shards: readonly ShardBundle[]): ShardBundle[] {
  const count = shards[0]!.plan.shard.count;
  const mismatch = shards.find((s) => s.plan.shard.count !== count);
  if (mismatch) refuse(`shard count differs: ${label(shards[0]!)} vs ${label(mismatch)}`);
  const byIndex = new Map<number, ShardBundle>();
  for (const shard of shards) {
    const seen = byIndex.get(shard.plan.shard.index);
    if (seen) refuse(`shard ${shard.plan.shard.index}/${count} given twice: ${seen.dir} and ${shard.dir}`);
    byIndex.set(shard.plan.shard.index, shard);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) refuse(`missing shard(s) ${missing.map((i) => `${i}/${count}`).join(', ')}: pass all ${count} shard bundles`);
  return [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i)!);
}

function disjointBlocks(shards: readonly ShardBundle[]): void {
  const owner = new Map<string, ShardBundle>();
  for (const shard of shards) {
    const { index, count } = shard.plan.shard;
    for (const trial of shard.plan.trials) {
      const other = owner.get(trial.trial_id);
      if (other) refuse(`trial ${trial.trial_id} is planned in both ${label(other)} and ${label(shard)}: blocks overlap`);
      owner.set(trial.trial_id, shard);
      if (shardOfBlock(trial.block, count) !== index) refuse(`${label(shard)} plans ${trial.warmup ? 'warmup ' : ''}block ${trial.block}, which belongs to shard ${shardOfBlock(trial.block, count)}`);
    }
  }
}

function completePlan(shards: readonly ShardBundle[]): Plan {
  const plan = reassemblePlan(shards.map((s) => s.plan));
  const digest = planDigest(plan);
  const parent = shards[0]!.plan.shard.parent_plan_digest;
  if (digest !== parent) refuse(`the shards' trials reassemble to plan ${digest}, not the parent ${parent}: a block is missing or a plan.json was altered`);
  return plan;
}

function everyTrialJournaled(shards: readonly ShardBundle[]): void {
  for (const shard of shards) {
    const planned = new Set(shard.plan.trials.map((t) => t.trial_id));
    const recorded = new Set(latestPerTrial(shard.records).map((r) => r.trial_id));
    const missing = [...planned].filter((id) => !recorded.has(id));
    if (missing.length > 0) refuse(`${label(shard)} has no journal record for ${missing.length} planned trial(s) (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}); finish it with sandbench run --resume ${shard.dir}`);
    const extra = [...recorded].filter((id) => !planned.has(id));
    if (extra.length > 0) refuse(`${label(shard)} journals trial(s) its plan does not hold: ${extra.slice(0, 5).join(', ')}`);
  }
}

/** Shards in index order and the reassembled parent plan; refuses (exit 3) on the first mismatch. */
export function checkShards(shards: readonly ShardBundle[]): { ordered: ShardBundle[]; plan: Plan } {
  if (shards.length === 0) throw new UserError('merge: give the shard bundles to merge');
  sameParent(shards);
  const ordered = everyIndexOnce(shards);
  disjointBlocks(ordered);
  const plan = completePlan(ordered);
  everyTrialJournaled(ordered);
  return { ordered, plan };
}
