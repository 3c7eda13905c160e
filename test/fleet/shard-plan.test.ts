import { describe, expect, it } from 'vitest';
import { planDigest, serializePlan } from '../../harness/plan/plan.ts';
import { armLabel } from '../../harness/journal/trial-record.ts';
import { parseShard, reassemblePlan, shardPlan, shardsWithoutWarmup } from '../../harness/fleet/shard-plan.ts';
import { UserError } from '../../harness/errors.ts';
import { host, plan } from './fleet-fixtures.ts';

describe('shardPlan: whole blocks, b mod N', () => {
  const full = plan();
  const shards = [0, 1, 2, 3].map((index) => shardPlan(full, { index, count: 4 }, host(`n${index}`)));

  it('gives every planned trial (warmups too) to exactly one shard', () => {
    const ids = shards.flatMap((s) => s.trials.map((t) => t.trial_id));
    expect(ids.sort()).toEqual(full.trials.map((t) => t.trial_id).sort());
    expect(new Set(ids).size).toBe(full.trials.length);
  });

  it('keeps blocks whole: each block of a shard holds every arm once, and lives in shard b mod N only', () => {
    for (const shard of shards) {
      const blocks = new Map<string, string[]>();
      for (const t of shard.trials) {
        expect(t.block % 4).toBe(shard.shard.index);
        const key = `${t.warmup}:${t.block}`;
        blocks.set(key, [...(blocks.get(key) ?? []), armLabel(t.arm)]);
      }
      for (const arms of blocks.values()) expect(arms.sort()).toEqual(['host', 'staged']);
    }
  });

  it('records index, count, host and the FULL plan digest; trials keep ids, seeds and global positions', () => {
    expect(shards[2]!.shard).toEqual({ index: 2, count: 4, parent_plan_digest: planDigest(full), host: host('n2') });
    const byId = new Map(full.trials.map((t) => [t.trial_id, t]));
    for (const t of shards[1]!.trials) expect(t).toEqual(byId.get(t.trial_id));
  });

  it('reassembles to the parent plan byte for byte (also after a JSON round trip)', () => {
    const roundTripped = shards.map((s) => JSON.parse(serializePlan(s)));
    expect(serializePlan(reassemblePlan(roundTripped.reverse()))).toBe(serializePlan(full));
    expect(planDigest(reassemblePlan(shards.slice(1)))).not.toBe(planDigest(full));
  });

  it('names the shards that get no warmup block', () => {
    expect(shardsWithoutWarmup(full, 4)).toEqual([2, 3]);
    expect(shardsWithoutWarmup(full, 2)).toEqual([]);
  });

  it('refuses a shard that would run no block', () => {
    expect(() => shardPlan(plan({ trials: 2 }), { index: 2, count: 3 }, host('x'))).toThrow(/would run none/);
  });
});

describe('--shard i/N parsing', () => {
  const parse = parseShard('--shard');
  it('accepts i/N with 0 ≤ i < N', () => {
    expect(parse('0/3')).toEqual({ index: 0, count: 3 });
    expect(parse('2/3')).toEqual({ index: 2, count: 3 });
  });
  it.each(['3/3', '1', '-1/3', 'a/b', '1/0', '1/3/4'])('refuses %s with a UserError (exit 2) naming --shard', (value) => {
    let error: unknown;
    try {
      parse(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).exitCode).toBe(2);
    expect((error as UserError).message).toMatch(/^--shard /);
  });
});
