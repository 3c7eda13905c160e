/**
 * The lazy-image schedule (pVisor's protocol, shared/reference README "Lazy"): 1 initial + 3
 * warmup rounds, then 30 formal rounds; each round shuffles the variants [full, lazy] by seed and
 * runs each variant cold, then immediately warm. One planned trial per launch; the block is the
 * round, so cold lazy and cold full pair per round in the bootstrap.
 */
import { readSection } from '../../harness/spec/kind-spec.ts';
import { lazySpecSection } from './lazy-spec.ts';
import { createPrng, shuffled } from '../../harness/plan/prng.ts';
import { PLAN_SCHEMA_VERSION, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import type { Spec } from '../../harness/spec/schema.ts';

export type LazyVariant = 'full' | 'lazy' | 'vm-full' | 'vm-lazy';
export type CacheState = 'cold' | 'warm';
export type RoundPhase = 'initial' | 'warmup' | 'formal';

export function lazyArm(backend: LazyVariant, variant: CacheState): ArmRef {
  return { backend, variant };
}

export interface LazyRounds {
  initial: number;
  warmup: number;
  formal: number;
  variants: LazyVariant[];
}

/** `trials` formal rounds and `warmups` warmup rounds unless the `lazy` section names them; 1 initial round by default. */
export function lazyRounds(spec: Spec): LazyRounds {
  const lazy = readSection(spec, lazySpecSection);
  return {
    initial: lazy.initial_rounds,
    warmup: lazy.warmup_rounds ?? spec.warmups,
    formal: lazy.rounds ?? spec.trials,
    variants: [...lazy.variants],
  };
}

export function buildLazyPlan(spec: Spec): Plan {
  const rounds = lazyRounds(spec);
  const prng = createPrng(spec.seed);
  const trials: PlannedTrial[] = [];
  const addRound = (phase: RoundPhase, block: number) => {
    const warmup = phase !== 'formal';
    for (const backend of shuffled(rounds.variants, prng)) {
      for (const state of ['cold', 'warm'] as const) {
        const arm = lazyArm(backend, state);
        trials.push({
          trial_id: `${phase === 'initial' ? 'i' : warmup ? 'w' : 'b'}${String(block).padStart(4, '0')}-${armLabel(arm)}`,
          block,
          position: trials.length,
          warmup,
          arm,
          seed: prng.int(0, 0x7fffffff),
          params: { phase },
        });
      }
    }
  };
  // Warmup blocks (initial first) are numbered 0.. apart from the formal blocks, as in buildPlan.
  for (let i = 0; i < rounds.initial; i++) addRound('initial', i);
  for (let i = 0; i < rounds.warmup; i++) addRound('warmup', rounds.initial + i);
  for (let i = 0; i < rounds.formal; i++) addRound('formal', i);
  return {
    schema_version: PLAN_SCHEMA_VERSION,
    spec_name: spec.name,
    experiment: spec.experiment,
    seed: spec.seed,
    arms: rounds.variants.flatMap((backend) => [lazyArm(backend, 'cold'), lazyArm(backend, 'warm')]),
    warmup_blocks: rounds.initial + rounds.warmup,
    blocks: rounds.formal,
    trials,
  };
}
