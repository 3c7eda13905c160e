/**
 * Randomized complete blocks ("RMIT", Abedi & Brecht, ICPE 2017): every block runs each arm once
 * in a freshly shuffled order, so slow drift of the machine hits every arm alike and the block is
 * the natural unit of pairing for the bootstrap. Warmups are planned like trials, flagged, journaled,
 * and excluded from statistics.
 */
import { createHash } from 'node:crypto';
import { armLabel, type ArmRef } from '../journal/trial-record.ts';
import type { Spec } from '../spec/schema.ts';
import { createPrng, shuffled } from './prng.ts';

export const PLAN_SCHEMA_VERSION = 1;

export interface PlannedTrial {
  trial_id: string;
  /** Block index; warmup blocks and formal blocks are numbered separately from 0. */
  block: number;
  /** Global position in the schedule, 0-based. */
  position: number;
  warmup: boolean;
  arm: ArmRef;
  /** Per-trial seed for anything random inside the trial. */
  seed: number;
  /** Kind-specific parameters (density: workload and concurrency; replay: agent and trajectory...). */
  params?: Record<string, string | number>;
}

export interface Plan {
  schema_version: number;
  spec_name: string;
  experiment: string;
  seed: number;
  arms: ArmRef[];
  warmup_blocks: number;
  blocks: number;
  trials: PlannedTrial[];
}

export function specArms(spec: Pick<Spec, 'arms'>): ArmRef[] {
  return spec.arms.map((arm) => ({ backend: arm.backend, variant: arm.variant ?? null, ...(arm.label ? { label: arm.label } : {}) }));
}

function trialId(warmup: boolean, block: number, arm: ArmRef): string {
  return `${warmup ? 'w' : 'b'}${String(block).padStart(4, '0')}-${armLabel(arm)}`;
}

export function buildPlan(spec: Pick<Spec, 'name' | 'experiment' | 'seed' | 'arms' | 'warmups' | 'trials'>): Plan {
  const prng = createPrng(spec.seed);
  const arms = specArms(spec);
  const trials: PlannedTrial[] = [];
  const addBlocks = (count: number, warmup: boolean) => {
    for (let block = 0; block < count; block++) {
      for (const arm of shuffled(arms, prng)) {
        trials.push({
          trial_id: trialId(warmup, block, arm),
          block,
          position: trials.length,
          warmup,
          arm,
          seed: prng.int(0, 0x7fffffff),
        });
      }
    }
  };
  addBlocks(spec.warmups, true);
  addBlocks(spec.trials, false);
  return {
    schema_version: PLAN_SCHEMA_VERSION,
    spec_name: spec.name,
    experiment: spec.experiment,
    seed: spec.seed,
    arms,
    warmup_blocks: spec.warmups,
    blocks: spec.trials,
    trials,
  };
}

/** Canonical bytes of a plan: stable key order, no timestamps, so the same seed gives the same file. */
export function serializePlan(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

export function planDigest(plan: Plan): string {
  return `sha256:${createHash('sha256').update(serializePlan(plan)).digest('hex')}`;
}

/** Human-readable schedule for `sandbench plan`. */
export function formatPlan(plan: Plan): string {
  const header = `plan ${plan.spec_name} (${plan.experiment}) seed=${plan.seed} arms=${plan.arms.map(armLabel).join(',')} warmup_blocks=${plan.warmup_blocks} blocks=${plan.blocks} trials=${plan.trials.length} digest=${planDigest(plan)}`;
  const rows = plan.trials.map(
    (t) => `${String(t.position).padStart(5)}  ${t.warmup ? 'warmup' : 'trial '} block ${String(t.block).padStart(4)}  ${armLabel(t.arm)}`,
  );
  return [header, ...rows].join('\n');
}
