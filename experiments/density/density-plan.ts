/**
 * The density schedule: cells = arm × workload × concurrency, `batches` fresh batches per cell, no
 * warmups. Each block runs every cell once in a seeded shuffled order (randomized complete blocks,
 * as for the timing kinds), so drift of the machine spreads over all cells alike.
 */
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { PLAN_SCHEMA_VERSION, specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { createPrng, shuffled } from '../../harness/plan/prng.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { readSection } from '../../harness/spec/kind-spec.ts';
import { densitySpecSection, type DensitySpec } from './density-spec.ts';

export type { DensitySpec };

export function densitySection(spec: Spec): DensitySpec {
  return readSection(spec, densitySpecSection);
}

export interface DensityCell {
  arm: ArmRef;
  workload: DensitySpec['workloads'][number];
  concurrency: number;
}

export function densityCells(spec: Spec): DensityCell[] {
  const density = densitySection(spec);
  return specArms(spec).flatMap((arm) => density.workloads.flatMap((workload) => density.concurrency.map((concurrency) => ({ arm, workload, concurrency }))));
}

export function cellLabel(cell: DensityCell): string {
  return `${armLabel(cell.arm)}-${cell.workload}-n${cell.concurrency}`;
}

export function buildDensityPlan(spec: Spec): Plan {
  const density = densitySection(spec);
  const prng = createPrng(spec.seed);
  const cells = densityCells(spec);
  const trials: PlannedTrial[] = [];
  for (let block = 0; block < density.batches; block++) {
    for (const cell of shuffled(cells, prng)) {
      trials.push({
        trial_id: `b${String(block).padStart(4, '0')}-${cellLabel(cell)}`,
        block,
        position: trials.length,
        warmup: false,
        arm: cell.arm,
        seed: prng.int(0, 0x7fffffff),
        params: { workload: cell.workload, concurrency: cell.concurrency },
      });
    }
  }
  return { schema_version: PLAN_SCHEMA_VERSION, spec_name: spec.name, experiment: spec.experiment, seed: spec.seed, arms: specArms(spec), warmup_blocks: 0, blocks: density.batches, trials };
}
