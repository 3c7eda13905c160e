import { describe, expect, it } from 'vitest';
import { buildPlan, formatPlan, serializePlan } from '../../../harness/plan/plan.ts';
import { armLabel } from '../../../harness/journal/trial-record.ts';
import { sandbench } from '../../support/cli.ts';

const spec = {
  name: 'p',
  experiment: 'shell-ready' as const,
  seed: 42,
  warmups: 2,
  trials: 30,
  arms: [{ backend: 'host' as const }, { backend: 'staged' as const }, { backend: 'podman' as const }],
};

describe('randomized complete blocks', () => {
  it('runs every arm exactly once per block, warmups first and flagged', () => {
    const plan = buildPlan(spec);
    expect(plan.trials).toHaveLength(3 * 32);
    for (let i = 0; i < plan.trials.length; i += 3) {
      const block = plan.trials.slice(i, i + 3);
      expect(new Set(block.map((t) => armLabel(t.arm))).size).toBe(3);
      expect(new Set(block.map((t) => `${t.warmup}:${t.block}`)).size).toBe(1);
    }
    expect(plan.trials.slice(0, 6).every((t) => t.warmup)).toBe(true);
    expect(plan.trials.slice(6).every((t) => !t.warmup)).toBe(true);
    expect(new Set(plan.trials.map((t) => t.trial_id)).size).toBe(plan.trials.length);
  });

  it('is byte-identical for one seed and differs for another', () => {
    expect(serializePlan(buildPlan(spec))).toBe(serializePlan(buildPlan(spec)));
    expect(formatPlan(buildPlan(spec))).toBe(formatPlan(buildPlan(spec)));
    const order = (seed: number) => buildPlan({ ...spec, seed }).trials.map((t) => armLabel(t.arm)).join(',');
    expect(order(43)).not.toBe(order(42));
  });

  it('randomizes which arm goes first (not a fixed rotation)', () => {
    const firsts = new Set(buildPlan(spec).trials.filter((t) => t.trial_id.includes('-') && t.position % 3 === 0).map((t) => armLabel(t.arm)));
    expect(firsts.size).toBe(3);
  });

  it('`sandbench plan` prints the same schedule twice and another with --seed', async () => {
    const first = await sandbench(['plan', 'experiments/specs/shell-ready.yaml']);
    const second = await sandbench(['plan', 'experiments/specs/shell-ready.yaml']);
    const other = await sandbench(['plan', 'experiments/specs/shell-ready.yaml', '--seed', '5']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(second.stdout);
    expect(other.stdout).not.toBe(first.stdout);
    // shell-ready.yaml: 7 arms (pvisor included) × (3 warmups + 60 trials), plus the header line.
    expect(first.stdout.split('\n')).toHaveLength(1 + 7 * 63);
  });
});
