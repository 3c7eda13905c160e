import { describe, expect, it } from 'vitest';
import { buildLazyPlan } from '../../experiments/lazy-image/lazy-plan.ts';
import { armLabel } from '../../harness/journal/trial-record.ts';
import { parseSpec } from '../../experiments/registry.ts';

const spec = parseSpec({
  name: 'lazy',
  experiment: 'lazy-image',
  arms: [{ backend: 'staged', variant: 'lazy' }, { backend: 'podman', variant: 'full' }],
  warmups: 3,
  trials: 30,
  seed: 20261007,
  timeout: '120s',
  lazy: { rounds: 30, initial_rounds: 1, warmup_rounds: 3 },
});

describe('lazy-image plan', () => {
  const plan = buildLazyPlan(spec);

  it('has 1 initial + 3 warmup + 30 formal rounds of four launches each', () => {
    expect(plan.trials).toHaveLength((1 + 3 + 30) * 4);
    expect(plan.trials.filter((t) => t.warmup)).toHaveLength(16);
    expect(plan.trials.filter((t) => t.params?.phase === 'initial')).toHaveLength(4);
    expect(plan.blocks).toBe(30);
    expect(plan.warmup_blocks).toBe(4);
  });

  it('runs every variant cold then immediately warm inside each round, block = round', () => {
    const formal = plan.trials.filter((t) => !t.warmup);
    for (let round = 0; round < 30; round++) {
      const labels = formal.filter((t) => t.block === round).map((t) => armLabel(t.arm));
      expect(labels).toHaveLength(4);
      expect([labels.slice(0, 2), labels.slice(2)].sort()).toEqual([['full:cold', 'full:warm'], ['lazy:cold', 'lazy:warm']]);
    }
  });

  it('shuffles the variant order by seed, reproducibly', () => {
    const firsts = plan.trials.filter((t) => !t.warmup && t.arm.variant === 'cold' && t.position % 4 === 0).map((t) => t.arm.backend);
    expect(new Set(firsts)).toEqual(new Set(['full', 'lazy']));
    expect(buildLazyPlan(spec)).toEqual(plan);
    expect(buildLazyPlan({ ...spec, seed: 1 }).trials.map((t) => t.trial_id)).not.toEqual(plan.trials.map((t) => t.trial_id));
  });
});
