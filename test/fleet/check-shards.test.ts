import { describe, expect, it } from 'vitest';
import { checkShards } from '../../harness/fleet/check-shards.ts';
import { serializePlan } from '../../harness/plan/plan.ts';
import { UserError } from '../../harness/errors.ts';
import { plan, shardBundle } from './fleet-fixtures.ts';

function refusal(run: () => unknown): UserError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).exitCode).toBe(3);
    return error as UserError;
  }
  throw new Error('expected the merge to be refused');
}

describe('checkShards: pieces of one plan, or a named refusal (exit 3)', () => {
  const full = plan();
  const shards = () => [2, 0, 1].map((i) => shardBundle(full, i, 3));

  it('accepts all shards of one plan in any order and reassembles the parent plan', () => {
    const { ordered, plan: parent } = checkShards(shards());
    expect(ordered.map((s) => s.plan.shard.index)).toEqual([0, 1, 2]);
    expect(serializePlan(parent)).toBe(serializePlan(full));
  });

  it('refuses shards of a different plan, naming both digests and what differs', () => {
    const other = shardBundle(plan({ seed: 8 }), 1, 3);
    other.resolved = { ...other.resolved, overrides: { seed: 8 } };
    const error = refusal(() => checkShards([shardBundle(full, 0, 3), other, shardBundle(full, 2, 3)]));
    expect(error.message).toMatch(/parent plan digest differs: \/bundles\/shard-0 \(shard 0\/3\) has sha256:[0-9a-f]{64}, \/bundles\/shard-1 \(shard 1\/3\) has sha256:/);
    expect(error.message).toMatch(/differs in overrides/);
  });

  it('refuses a missing or repeated shard index', () => {
    expect(refusal(() => checkShards(shards().slice(0, 2))).message).toMatch(/missing shard\(s\) 1\/3: pass all 3 shard bundles/);
    const [a, b] = shards();
    expect(refusal(() => checkShards([a!, b!, { ...a!, dir: '/bundles/copy' }])).message).toMatch(/shard 2\/3 given twice: \/bundles\/shard-2 and \/bundles\/copy/);
  });

  it('refuses a shard whose journal lacks a planned trial, naming it and the resume command', () => {
    const set = shards();
    set[1]!.records = set[1]!.records.filter((r) => r.trial_id !== set[1]!.plan.trials[0]!.trial_id);
    expect(refusal(() => checkShards(set)).message).toMatch(/\/bundles\/shard-0 \(shard 0\/3\) has no journal record for 1 planned trial\(s\) \(w0000-(host|staged)\); finish it with sandbench run --resume \/bundles\/shard-0/);
  });

  it('refuses overlapping or misplaced blocks and a plan that no longer hashes to the parent', () => {
    const overlap = shards();
    overlap[0]!.plan = { ...overlap[0]!.plan, trials: [...overlap[0]!.plan.trials, overlap[1]!.plan.trials[0]!] };
    expect(refusal(() => checkShards(overlap)).message).toMatch(/is planned in both/);
    const dropped = shards();
    dropped[0]!.plan = { ...dropped[0]!.plan, trials: dropped[0]!.plan.trials.slice(2) };
    dropped[0]!.records = dropped[0]!.records.slice(2);
    expect(refusal(() => checkShards(dropped)).message).toMatch(/reassemble to plan sha256:[0-9a-f]{64}, not the parent/);
  });

  it('refuses shards that ran different task images', () => {
    const set = shards();
    set[2]!.manifest = { ...set[2]!.manifest, image_digests: { task: 'sha256:other' } };
    expect(refusal(() => checkShards(set)).message).toMatch(/task image digest differs/);
  });
});
