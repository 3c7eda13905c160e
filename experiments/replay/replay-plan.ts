/**
 * The replay schedule: arms are subject × agent; each block is one (repetition, trajectory) pair in
 * which every arm prepares that trajectory once, in a seeded shuffled order (randomized complete
 * blocks, so machine drift hits every arm alike and a block pairs subjects on the same bytes).
 * Trajectory order is shuffled inside each repetition. No warmups: the published protocol has none.
 */
import { armLabel, type ArmRef } from '../../harness/journal/trial-record.ts';
import { PLAN_SCHEMA_VERSION, type Plan, type PlannedTrial } from '../../harness/plan/plan.ts';
import { createPrng, shuffled } from '../../harness/plan/prng.ts';
import type { Spec } from '../../harness/spec/schema.ts';
import { readSection } from '../../harness/spec/kind-spec.ts';
import { replaySpecSection, type ReplaySpec } from './replay-spec.ts';
import { UserError } from '../../harness/errors.ts';
import type { ReplaySubject } from './subjects.ts';

export type { ReplaySpec };

export function replaySection(spec: Spec): ReplaySpec {
  return readSection(spec, replaySpecSection);
}

/** The section's cross-field rules. Generic trials/warmups are the loader's (the kind repeats with replay.repetitions). */
export function checkReplayProtocol(spec: Spec): void {
  const replay = replaySection(spec);
  if (replay.mode === 'branch-point' && replay.task !== 'builtin-fix') {
    throw new UserError(`replay.task: mode branch-point needs task: builtin-fix (its file-checkpoint way writes the prefix's files; the effects task also makes a .git), got ${replay.task}`);
  }
  if (replay.task === 'builtin-fix' && replay.mode === 'prepare-only') throw new UserError('replay.task: builtin-fix trajectories are re-executed; set mode: replay-only, continue or branch-point (prepare-only uses the marker task)');
}

export function replayArms(subjects: readonly ReplaySubject[], spec: Spec): ArmRef[] {
  const replay = replaySection(spec);
  return subjects.flatMap((subject) => replay.agents.map((agent) => ({ backend: subject, variant: agent })));
}

export function buildReplayPlan(spec: Spec, subjects: readonly ReplaySubject[]): Plan {
  return buildReplayBlocks(spec, replayArms(subjects, spec));
}

/** Every mode's schedule: blocks of (repetition, trajectory), each arm once per block in seeded order. */
export function buildReplayBlocks(spec: Spec, arms: ArmRef[]): Plan {
  checkReplayProtocol(spec);
  const replay = replaySection(spec);
  const prng = createPrng(spec.seed);
  const indices = Array.from({ length: replay.trajectories }, (_, i) => i);
  const trials: PlannedTrial[] = [];
  let block = 0;
  for (let repetition = 0; repetition < replay.repetitions; repetition++) {
    for (const trajectory of shuffled(indices, prng)) {
      for (const arm of shuffled(arms, prng)) {
        trials.push({
          trial_id: `r${repetition}-t${String(trajectory).padStart(3, '0')}-${armLabel(arm)}`,
          block,
          position: trials.length,
          warmup: false,
          arm,
          seed: prng.int(0, 0x7fffffff),
          params: { agent: arm.variant!, trajectory, repetition },
        });
      }
      block++;
    }
  }
  return { schema_version: PLAN_SCHEMA_VERSION, spec_name: spec.name, experiment: spec.experiment, seed: spec.seed, arms, warmup_blocks: 0, blocks: block, trials };
}
