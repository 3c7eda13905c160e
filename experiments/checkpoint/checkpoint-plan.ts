/**
 * The checkpoint schedule: cells = arm × K (children per checkpoint). `warmups` warmup blocks, then
 * `trials` formal blocks; each block runs every cell once in a seeded shuffled order (randomized
 * complete blocks, as for the timing kinds), so machine drift spreads over all cells alike.
 */
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { PLAN_SCHEMA_VERSION, specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { createPrng, shuffled } from '../../harness/plan/prng.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { readSection } from '../../harness/spec/kind-spec.ts';
import { checkpointSpecSection, type CheckpointSpec } from './checkpoint-spec.ts';

export type { CheckpointSpec };

export function checkpointSection(spec: Spec): CheckpointSpec {
  return readSection(spec, checkpointSpecSection);
}

export interface CheckpointCell {
  arm: ArmRef;
  children: number;
}

export const cellLabel = (cell: CheckpointCell) => `${armLabel(cell.arm)}-k${cell.children}`;

export function buildCheckpointPlan(spec: Spec): Plan {
  const section = checkpointSection(spec);
  const prng = createPrng(spec.seed);
  const cells: CheckpointCell[] = specArms(spec).flatMap((arm) => [...new Set(section.children)].map((children) => ({ arm, children })));
  const trials: PlannedTrial[] = [];
  const addBlocks = (count: number, warmup: boolean) => {
    for (let block = 0; block < count; block++) {
      for (const cell of shuffled(cells, prng)) {
        trials.push({
          trial_id: `${warmup ? 'w' : 'b'}${String(block).padStart(4, '0')}-${cellLabel(cell)}`,
          block,
          position: trials.length,
          warmup,
          arm: cell.arm,
          seed: prng.int(0, 0x7fffffff),
          params: { children: cell.children },
        });
      }
    }
  };
  addBlocks(spec.warmups, true);
  addBlocks(spec.trials, false);
  return { schema_version: PLAN_SCHEMA_VERSION, spec_name: spec.name, experiment: spec.experiment, seed: spec.seed, arms: specArms(spec), warmup_blocks: spec.warmups, blocks: spec.trials, trials };
}
