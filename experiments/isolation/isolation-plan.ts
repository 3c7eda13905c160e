/**
 * The isolation schedule: randomized complete blocks over (arm × fixture placement) — each block
 * runs every arm once per placement in a seeded shuffled order, so the placement is crossed with
 * the backend like any other factor, never run as a separate batch at a different time.
 */
import { armLabel } from '../../harness/journal/trial-record.ts';
import { PLAN_SCHEMA_VERSION, specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { createPrng, shuffled } from '../../harness/plan/prng.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { placementsOf } from './isolation-placement.ts';

export function buildIsolationPlan(spec: Spec): Plan {
  const prng = createPrng(spec.seed);
  const arms = specArms(spec);
  const placements = placementsOf(spec);
  const cells = arms.flatMap((arm) => placements.map((placement) => ({ arm, placement })));
  const trials: PlannedTrial[] = [];
  const addBlocks = (count: number, warmup: boolean) => {
    for (let block = 0; block < count; block++) {
      for (const { arm, placement } of shuffled(cells, prng)) {
        trials.push({
          trial_id: `${warmup ? 'w' : 'b'}${String(block).padStart(4, '0')}-${armLabel(arm).replace(':', '-')}-${placement}`,
          block,
          position: trials.length,
          warmup,
          arm,
          seed: prng.int(0, 0x7fffffff),
          params: { placement },
        });
      }
    }
  };
  addBlocks(spec.warmups, true);
  addBlocks(spec.trials, false);
  return { schema_version: PLAN_SCHEMA_VERSION, spec_name: spec.name, experiment: spec.experiment, seed: spec.seed, arms, warmup_blocks: spec.warmups, blocks: spec.trials, trials };
}
