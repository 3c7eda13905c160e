/**
 * Partition of a plan into N shards by whole blocks: block b (warmup and formal blocks alike, each
 * numbered from 0) goes to shard b mod N. A block is the unit of pairing (every arm once, in a
 * shuffled order), so keeping blocks whole keeps every paired comparison valid inside one host.
 * Trials keep their ids, seeds and global positions, so the shards' trials reassemble into the
 * parent plan byte for byte (merge checks that against the parent's digest).
 */
import { UserError } from '../errors.ts';
import { planDigest, type Plan, type PlannedTrial } from '../plan/plan.ts';
import type { HostIdentity } from './host-identity.ts';

export interface ShardSelector {
  index: number;
  count: number;
}

/** What plan.json of a shard bundle records beside its trials. */
export interface ShardInfo extends ShardSelector {
  /** planDigest of the full (unsharded) plan: shards of one campaign share it. */
  parent_plan_digest: string;
  host: HostIdentity;
}

export type ShardedPlan = Plan & { shard: ShardInfo };

/** `--shard i/N`: 0 ≤ i < N. */
export function parseShard(option: string) {
  return (value: string): ShardSelector => {
    const match = /^(\d+)\/(\d+)$/.exec(value.trim());
    if (!match) throw new UserError(`${option} ${value}: expected i/N (shard index / shard count), e.g. ${option} 0/3`);
    const index = Number(match[1]);
    const count = Number(match[2]);
    if (count < 1) throw new UserError(`${option} ${value}: the shard count N must be ≥ 1`);
    if (index >= count) throw new UserError(`${option} ${value}: the shard index must be in 0..${count - 1} (indices start at 0)`);
    return { index, count };
  };
}

export function shardOfBlock(block: number, count: number): number {
  return block % count;
}

export function trialsOfShard(trials: readonly PlannedTrial[], shard: ShardSelector): PlannedTrial[] {
  return trials.filter((trial) => shardOfBlock(trial.block, shard.count) === shard.index);
}

/** The shard's plan: its blocks' trials (schedule order kept) plus the shard record. */
export function shardPlan(plan: Plan, shard: ShardSelector, host: HostIdentity): ShardedPlan {
  if (!Number.isInteger(shard.count) || shard.count < 1 || !Number.isInteger(shard.index) || shard.index < 0 || shard.index >= shard.count) {
    throw new Error(`shardPlan: invalid shard ${shard.index}/${shard.count}`);
  }
  const trials = trialsOfShard(plan.trials, shard);
  if (!trials.some((t) => !t.warmup)) throw new UserError(`--shard ${shard.index}/${shard.count}: the plan has ${plan.blocks} blocks, so this shard would run none; use at most ${plan.blocks} shards`);
  return { ...plan, trials, shard: { index: shard.index, count: shard.count, parent_plan_digest: planDigest(plan), host } };
}

/** The parent plan rebuilt from shard plans: their trials in schedule order, the shard record dropped. */
export function reassemblePlan(shards: readonly ShardedPlan[]): Plan {
  const [first] = shards;
  if (!first) throw new Error('reassemblePlan: no shards');
  const { shard: _shard, ...base } = first;
  const trials = shards.flatMap((s) => s.trials).sort((a, b) => a.position - b.position);
  return { ...base, trials };
}

/** Shards whose warmup blocks are fewer than the shards start cold on some hosts: say so before running. */
export function shardsWithoutWarmup(plan: Plan, count: number): number[] {
  const withWarmup = new Set(plan.trials.filter((t) => t.warmup).map((t) => shardOfBlock(t.block, count)));
  return Array.from({ length: count }, (_, i) => i).filter((i) => !withWarmup.has(i));
}
