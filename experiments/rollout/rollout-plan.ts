/**
 * The rollout schedule: cells = arm × concurrency C (per backend) × model capacity × arrival mode ×
 * admission cap; every block runs each cell once, cells in a seeded shuffled order (so the caps a run
 * compares are interleaved); a cell is `attempts` consecutive planned trials (one per rollout
 * attempt) that the kind runs on a pool of C workers under the cell's arrival mode and cap. Which task and
 * scripted path attempt k takes depends only on the seed and k, so attempt k is the same rollout
 * in every cell: rewards pair across backends.
 */
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { PLAN_SCHEMA_VERSION, specArms, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { createPrng, seedFromString, shuffled, type Prng } from '../../harness/plan/prng.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { parseRolloutArm } from './rollout-arms.ts';
import { arrivalLabel, arrivalOf, capLabel, capOf } from '../../harness/schedule/index.ts';
import { attemptsFor, concurrencyFor, rolloutOptions, type ModelCapacity, type RolloutSpec } from './rollout-spec.ts';
import type { AttemptPath } from './task-contract.ts';

export interface RolloutCell {
  arm: ArmRef;
  concurrency: number;
  capacity: ModelCapacity;
  /** The arrival mode's spec text (`closed`, `burst(64)`, …). */
  arrival: string;
  /** Most attempts starting at once; null: no cap. */
  admissionCap: number | null;
}

/** Cells of the default schedule (closed loop, no cap) keep the labels they had before arrivals existed. */
function scheduleSuffix(cell: RolloutCell): string {
  if (cell.arrival === 'closed' && cell.admissionCap === null) return '';
  return `-${arrivalLabel(arrivalOf(cell.arrival))}-${capLabel(cell.admissionCap)}`;
}

export function capacityLabel(capacity: ModelCapacity): string {
  return `s${capacity.slots}b${capacity.base_ms}p${capacity.per_token_ms}`;
}

export function cellLabel(cell: RolloutCell): string {
  return `${armLabel(cell.arm)}-c${cell.concurrency}-${capacityLabel(cell.capacity)}${scheduleSuffix(cell)}`;
}

export function rolloutCells(spec: Spec): RolloutCell[] {
  const options = rolloutOptions(spec);
  const schedules = options.arrival.flatMap((arrival) => options.admission_cap.map((cap) => ({ arrival, admissionCap: capOf(cap) })));
  return specArms(spec).flatMap((arm) => concurrencyFor(options, arm.backend).flatMap((concurrency) => options.model.flatMap((capacity) => schedules.map((schedule) => ({ arm, concurrency, capacity, ...schedule })))));
}

/** The params a planned attempt carries (the cell's identity and the attempt's index in it). */
export interface AttemptParams {
  cell: string;
  concurrency: number;
  slots: number;
  base_ms: number;
  per_token_ms: number;
  attempt: number;
  arrival: string;
  admission_cap: number | null;
}

export function attemptParams(planned: PlannedTrial): AttemptParams {
  const p = planned.params ?? {};
  return {
    cell: String(p.cell), concurrency: Number(p.concurrency), slots: Number(p.slots), base_ms: Number(p.base_ms), per_token_ms: Number(p.per_token_ms), attempt: Number(p.attempt),
    // plans from before arrivals existed ran the closed loop without a cap
    arrival: typeof p.arrival === 'string' ? p.arrival : 'closed',
    admission_cap: typeof p.admission_cap === 'number' ? p.admission_cap : null,
  };
}

/** Cell run key: the cell in one block (a block's attempts of a cell run as one closed loop); warm-up blocks are numbered apart. */
export function cellRunKey(planned: PlannedTrial): string {
  return `${planned.warmup ? 'w' : ''}${planned.block}:${attemptParams(planned).cell}`;
}

/**
 * Every cell once per block, in a seeded shuffled order, each cell `attempts` consecutive trials.
 * Warm-up blocks draw their order and seeds from a generator of their own, so the formal blocks of
 * a spec are the same trials (ids, seeds, order) with or without warm-up blocks.
 */
function addBlocks(trials: PlannedTrial[], cells: readonly RolloutCell[], count: number, warmup: boolean, prng: Prng, options: RolloutSpec): void {
  for (let block = 0; block < count; block++) {
    for (const cell of shuffled(cells, prng)) {
      const label = cellLabel(cell);
      for (let attempt = 0, attempts = attemptsFor(options, cell.arm.backend); attempt < attempts; attempt++) {
        trials.push({
          trial_id: `${warmup ? 'w' : 'b'}${String(block).padStart(4, '0')}-${label}-a${String(attempt).padStart(4, '0')}`,
          block,
          position: trials.length,
          warmup,
          arm: cell.arm,
          seed: prng.int(0, 0x7fffffff),
          params: {
            cell: label, concurrency: cell.concurrency, slots: cell.capacity.slots, base_ms: cell.capacity.base_ms, per_token_ms: cell.capacity.per_token_ms, attempt,
            // only off the default schedule, so plans of specs without arrivals stay byte-identical
            ...(scheduleSuffix(cell) ? { arrival: cell.arrival, admission_cap: cell.admissionCap ?? 'none' } : {}),
          },
        });
      }
    }
  }
}

export function buildRolloutPlan(spec: Spec): Plan {
  const options = rolloutOptions(spec);
  specArms(spec).forEach((arm, index) => parseRolloutArm(arm, index));
  const cells = rolloutCells(spec);
  const trials: PlannedTrial[] = [];
  addBlocks(trials, cells, options.warmup_blocks, true, createPrng(seedFromString(`rollout-warmup:${spec.seed}`)), options);
  addBlocks(trials, cells, options.blocks, false, createPrng(spec.seed), options);
  return { schema_version: PLAN_SCHEMA_VERSION, spec_name: spec.name, experiment: spec.experiment, seed: spec.seed, arms: specArms(spec), warmup_blocks: options.warmup_blocks, blocks: options.blocks, trials };
}

/** Attempt k's task (index into the task set) and scripted path: a function of the seed and k only. */
export function attemptAssignment(seed: number, attempt: number, taskCount: number, wrongFraction: number): { taskIndex: number; path: AttemptPath } {
  // Straight from the hash (uniform 31 bits): a generator's first draw from a fresh small seed is not.
  const draw = seedFromString(`rollout-attempt:${seed}:${attempt}`) / 0x80000000;
  const offset = seedFromString(`rollout-offset:${seed}`) % Math.max(1, taskCount);
  return { taskIndex: (attempt + offset) % taskCount, path: draw < wrongFraction ? 'wrong' : 'right' };
}
