/**
 * Comparison of a candidate arm with a control arm: difference and ratio of medians with bootstrap
 * CIs, plus rank-test cross-checks. The conclusion reads the percentile 95% CI of the difference —
 * the interval the published study reports — and refuses a verdict when either arm is bimodal.
 */
import {
  bcaInterval,
  medianAccelerations,
  pairedReplicates,
  percentileInterval,
  PRNG_NAME,
  seedFromString,
  unpairedReplicates,
  type Interval,
} from './bootstrap.ts';
import { detectClusters } from './clusters.ts';
import { hodgesLehmannPaired, hodgesLehmannShift } from './hodges-lehmann.ts';
import { median } from './quantile.ts';
import { mannWhitneyU, wilcoxonSignedRank } from './rank-tests.ts';

export type { Interval } from './bootstrap.ts';

export interface MedianComparisonInput {
  candidate: number[];
  control: number[];
  /** When paired, candidate[i] and control[i] come from the same block. */
  paired: boolean;
  resamples: number;
  /** e.g. `${runId}:${metric}:${candidateArm}`; the PRNG seed derives from it. */
  seedId: string;
}

export type ComparisonConclusion = 'candidate faster' | 'candidate slower' | 'no detected difference' | 'separated distribution; inspect clusters';

export interface MedianComparison {
  n_candidate: number;
  n_control: number;
  n_pairs: number | null;
  difference: number;
  difference_ci: { percentile: Interval; bca: Interval };
  ratio: number;
  ratio_ci: { percentile: Interval; bca: Interval };
  conclusion: ComparisonConclusion;
  method: string;
  seed: number;
  prng: string;
  resamples: number;
  signed_rank_p: number | null;
  mann_whitney_p: number | null;
  hodges_lehmann: number;
  underpowered: boolean;
}

/**
 * Default: underpowered when the 95% CI half-width exceeds half the estimate (spec
 * `underpowered_fraction`): past that point the data cannot pin the difference down to within a
 * factor of about two, so the sign may hold but the size should not be quoted.
 */
export const DEFAULT_UNDERPOWERED_FRACTION = 0.5;

function validate(input: MedianComparisonInput): void {
  const { candidate, control, paired, resamples } = input;
  if (candidate.length === 0 || control.length === 0) throw new Error(`compareMedians: empty sample (candidate n=${candidate.length}, control n=${control.length})`);
  if (paired && candidate.length !== control.length) throw new Error(`compareMedians: paired samples differ in length (${candidate.length} vs ${control.length})`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`compareMedians: resamples must be a positive integer, got ${resamples}`);
  for (const [name, values] of [['candidate', candidate], ['control', control]] as const) {
    const bad = values.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) throw new Error(`compareMedians: ${name}[${bad}] = ${values[bad]} is not a finite number`);
  }
}

function conclude(ci: Interval, separated: boolean): ComparisonConclusion {
  if (separated) return 'separated distribution; inspect clusters';
  // Lower is faster for every timing metric; an interval that contains 0 detects nothing.
  if (ci.high < 0) return 'candidate faster';
  if (ci.low > 0) return 'candidate slower';
  return 'no detected difference';
}

export function compareMedians(input: MedianComparisonInput, options: { underpoweredFraction?: number } = {}): MedianComparison {
  validate(input);
  const { candidate, control, paired, resamples, seedId } = input;
  const seed = seedFromString(seedId);
  const medianC = median(candidate);
  const medianK = median(control);
  const difference = medianC - medianK;
  const ratio = medianC / medianK;

  const replicates = (paired ? pairedReplicates : unpairedReplicates)(candidate, control, resamples, seed);
  const sortedDiff = replicates.difference.sort();
  const sortedRatio = replicates.ratio.sort();
  const acceleration = medianAccelerations(candidate, control, paired);
  const differenceCi = { percentile: percentileInterval(sortedDiff), bca: bcaInterval(sortedDiff, difference, acceleration.difference) };
  const ratioCi = { percentile: percentileInterval(sortedRatio), bca: bcaInterval(sortedRatio, ratio, acceleration.ratio) };

  const separated = detectClusters(candidate).distribution === 'separated-clusters' || detectClusters(control).distribution === 'separated-clusters';
  const fraction = options.underpoweredFraction ?? DEFAULT_UNDERPOWERED_FRACTION;
  const halfWidth = (differenceCi.percentile.high - differenceCi.percentile.low) / 2;
  const differences = paired ? candidate.map((v, i) => v - control[i]!) : null;

  const design = paired ? `paired-round bootstrap over ${candidate.length} blocks` : `independent bootstrap (n=${candidate.length} vs ${control.length})`;
  return {
    n_candidate: candidate.length,
    n_control: control.length,
    n_pairs: paired ? candidate.length : null,
    difference,
    difference_ci: differenceCi,
    ratio,
    ratio_ci: ratioCi,
    conclusion: conclude(differenceCi.percentile, separated),
    method: `${design}, difference of medians, percentile 95% CI (BCa in detail); ${resamples} resamples; ${PRNG_NAME}; seed ${seed} (${seedId})`,
    seed,
    prng: PRNG_NAME,
    resamples,
    signed_rank_p: differences ? (wilcoxonSignedRank(differences)?.p ?? null) : null,
    mann_whitney_p: paired ? null : mannWhitneyU(candidate, control).p,
    hodges_lehmann: differences ? hodgesLehmannPaired(differences) : hodgesLehmannShift(candidate, control),
    underpowered: halfWidth > fraction * Math.abs(difference),
  };
}
