/**
 * Comparison of a candidate arm with a control arm: difference and ratio of medians with bootstrap
 * CIs, plus rank-test cross-checks. The conclusion reads the percentile 95% CI of the difference —
 * the interval the published study reports — and refuses a verdict when either arm is bimodal, when
 * there are fewer than MIN_PAIRS pairs (minimum-n.ts), or when nothing can be concluded.
 */
import {
  bcaInterval,
  medianAccelerations,
  pairedReplicates,
  percentileInterval,
  seedFromString,
  unpairedReplicates,
  type Interval,
} from './bootstrap.ts';
import { detectClusters } from './clusters.ts';
import { hodgesLehmannPaired, hodgesLehmannShift } from './hodges-lehmann.ts';
import { BOOTSTRAP_PRNG_NAME } from './index-sampler.ts';
import { belowMinimum, INSUFFICIENT_DATA, insufficientNote, MIN_PAIRS, SIGNIFICANCE_LEVEL } from './minimum-n.ts';
import { median } from './quantile.ts';
import { mannWhitneyU, wilcoxonSignedRank } from './rank-tests.ts';
import { undefinedRatioReason } from './ratio.ts';
import { coarseResolution } from './resolution.ts';

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

export type ComparisonConclusion = 'candidate faster' | 'candidate slower' | 'no detected difference' | 'separated distribution; inspect clusters' | typeof INSUFFICIENT_DATA;

/** BCa is null when the jackknife is degenerate (every leave-one-out estimate equal: ties); scipy refuses it there too. */
export interface IntervalPair {
  percentile: Interval;
  bca: Interval | null;
}

export interface MedianComparison {
  n_candidate: number;
  n_control: number;
  n_pairs: number | null;
  difference: number;
  difference_ci: IntervalPair;
  /** Null when a median is 0, negative or a resample's control median is 0 (ratio_note says why). */
  ratio: number | null;
  ratio_ci: IntervalPair | null;
  ratio_note: string | null;
  conclusion: ComparisonConclusion;
  /** True when the jackknife variance is 0: BCa is not reported; the verdict always reads the percentile interval. */
  bca_degenerate: boolean;
  /** Notes a reader needs (minimum n, coarse timer resolution, undefined ratio, degenerate BCa). */
  notes: string[];
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

/**
 * A verdict needs the percentile interval to exclude 0 AND the rank test to agree at 5%: at 6–10
 * pairs the median's bootstrap interval alone called 5–6% of A/A datasets (issue-13 audit), and the
 * exact rank test is the small-sample guard the interval lacks.
 */
function conclude(ci: Interval, separated: boolean, tooFew: boolean, rankP: number | null): ComparisonConclusion {
  if (tooFew) return INSUFFICIENT_DATA;
  if (separated) return 'separated distribution; inspect clusters';
  const agrees = rankP !== null && rankP < SIGNIFICANCE_LEVEL;
  // Lower is faster for every timing metric; an interval that contains 0 detects nothing.
  if (ci.high < 0 && agrees) return 'candidate faster';
  if (ci.low > 0 && agrees) return 'candidate slower';
  return 'no detected difference';
}

export function compareMedians(input: MedianComparisonInput, options: { underpoweredFraction?: number } = {}): MedianComparison {
  validate(input);
  const { candidate, control, paired, resamples, seedId } = input;
  const seed = seedFromString(seedId);
  const medianC = median(candidate);
  const medianK = median(control);
  const difference = medianC - medianK;

  const replicates = (paired ? pairedReplicates : unpairedReplicates)(candidate, control, resamples, seed);
  const sortedDiff = replicates.difference.sort();
  const sortedRatio = replicates.ratio.sort();
  const acceleration = medianAccelerations(candidate, control, paired);
  const differenceCi: IntervalPair = {
    percentile: percentileInterval(sortedDiff),
    bca: acceleration.differenceDegenerate ? null : bcaInterval(sortedDiff, difference, acceleration.difference),
  };
  const ratioNote = undefinedRatioReason(medianC, medianK, sortedRatio);
  const ratio = ratioNote ? null : medianC / medianK;
  const ratioCi: IntervalPair | null =
    ratio === null ? null : { percentile: percentileInterval(sortedRatio), bca: acceleration.ratioDegenerate ? null : bcaInterval(sortedRatio, ratio, acceleration.ratio) };

  const separated = detectClusters(candidate).distribution === 'separated-clusters' || detectClusters(control).distribution === 'separated-clusters';
  const fraction = options.underpoweredFraction ?? DEFAULT_UNDERPOWERED_FRACTION;
  const halfWidth = (differenceCi.percentile.high - differenceCi.percentile.low) / 2;
  const differences = paired ? candidate.map((v, i) => v - control[i]!) : null;
  const binding = paired ? candidate.length : Math.min(candidate.length, control.length);
  const tooFew = belowMinimum(binding);
  const bcaDegenerate = acceleration.differenceDegenerate;

  const notes: string[] = [];
  if (tooFew) notes.push(insufficientNote(binding, paired ? 'pairs' : 'values in the smaller arm'));
  if (ratioNote) notes.push(`ratio undefined: ${ratioNote}`);
  if (bcaDegenerate) notes.push('BCa degenerate (jackknife variance 0, ties): not reported; the verdict reads the percentile interval');
  const coarse = coarseResolution([...candidate, ...control]);
  if (coarse) notes.push(coarse);
  const signedRankP = differences ? (wilcoxonSignedRank(differences)?.p ?? null) : null;
  const mannWhitneyP = paired ? null : mannWhitneyU(candidate, control).p;
  const rankP = paired ? signedRankP : mannWhitneyP;
  const excludesZero = differenceCi.percentile.low > 0 || differenceCi.percentile.high < 0;
  if (!tooFew && !separated && excludesZero && !(rankP !== null && rankP < SIGNIFICANCE_LEVEL)) {
    notes.push(`the interval excludes 0 but the ${paired ? 'signed-rank' : 'Mann–Whitney'} test does not agree (p = ${rankP === null ? 'n/a' : rankP.toPrecision(3)}): no verdict`);
  }

  const design = paired ? `paired-round bootstrap over ${candidate.length} blocks (difference of the medians of those paired blocks)` : `independent bootstrap (n=${candidate.length} vs ${control.length})`;
  return {
    n_candidate: candidate.length,
    n_control: control.length,
    n_pairs: paired ? candidate.length : null,
    difference,
    difference_ci: differenceCi,
    ratio,
    ratio_ci: ratioCi,
    ratio_note: ratioNote,
    conclusion: conclude(differenceCi.percentile, separated, tooFew, rankP),
    bca_degenerate: bcaDegenerate,
    notes,
    method: `${design}, difference of medians, percentile 95% CI (BCa in detail); verdict needs the CI to exclude 0 and the ${paired ? 'signed-rank' : 'Mann–Whitney'} p < ${SIGNIFICANCE_LEVEL}${tooFew ? `, no verdict below ${MIN_PAIRS}` : ''}; ${resamples} resamples; ${BOOTSTRAP_PRNG_NAME}; seed ${seed} (${seedId})`,
    seed,
    prng: BOOTSTRAP_PRNG_NAME,
    resamples,
    signed_rank_p: signedRankP,
    mann_whitney_p: mannWhitneyP,
    hodges_lehmann: differences ? hodgesLehmannPaired(differences) : hodgesLehmannShift(candidate, control),
    // Below the minimum n no interval width is trustworthy, whatever it looks like.
    underpowered: tooFew || halfWidth > fraction * Math.abs(difference),
  };
}
