/**
 * The comparison of a score between two arms over matched units (rollout attempts: the same task and
 * path in both arms): the result type both methods return, so renderers show one shape whichever
 * method the data called for. A score is higher-is-better (a reward), unlike the timings
 * compare.ts judges, so its verdict words are "higher" / "lower".
 */
import type { Interval } from './bootstrap.ts';
import { INSUFFICIENT_DATA } from './minimum-n.ts';
import { comparePairedMeans } from './paired-means.ts';
import { comparePairedProportions } from './paired-proportions.ts';

export type ScoreConclusion = 'candidate higher' | 'candidate lower' | 'no detected difference' | typeof INSUFFICIENT_DATA;

/** The paired 2×2 table of binary outcomes (candidate × control) over n matched pairs. */
export interface PairedTable {
  /** Both succeeded. */
  both: number;
  /** Only the candidate succeeded (a discordant pair). */
  candidateOnly: number;
  /** Only the control succeeded (the other discordant pair). */
  controlOnly: number;
  /** Neither succeeded. */
  neither: number;
}

export interface PairedScoreComparison {
  /** `paired proportions`: every value is 0 or 1; `paired means`: any other score. */
  design: 'paired proportions' | 'paired means';
  pairs: number;
  /** Success rate (proportions) or mean score (means) of each arm over the pairs. */
  candidateMean: number;
  controlMean: number;
  /** candidateMean − controlMean: the paired difference. */
  difference: number;
  /** 95% interval of the difference; null when it is undefined (no pair). */
  ci: Interval | null;
  /** McNemar's exact p (proportions) or the signed-rank p (means); null without a test. */
  p: number | null;
  /** Set for proportions. */
  table: PairedTable | null;
  conclusion: ScoreConclusion;
  notes: string[];
  method: string;
}

/** Whether every score is 0 or 1 (a success indicator). */
export function isBinary(values: readonly number[]): boolean {
  return values.every((v) => v === 0 || v === 1);
}

/**
 * The comparison the data supports: paired proportions (Newcombe interval, McNemar's exact p) when
 * every score of both arms is 0 or 1, else the paired difference of means with its bootstrap CI.
 */
export function comparePairedScores(candidate: readonly number[], control: readonly number[], options: { resamples: number; seedId: string }): PairedScoreComparison {
  return isBinary(candidate) && isBinary(control) ? comparePairedProportions(candidate, control) : comparePairedMeans(candidate, control, options);
}
