/**
 * Mean score of two arms over matched pairs, for scores that are not 0/1 (partial-credit rewards):
 * the difference of means with a percentile bootstrap interval over the pairs (a pair is resampled
 * whole, so what the arms share cancels, as in compare.ts's paired blocks) and the Wilcoxon
 * signed-rank test on the pair differences as the agreement check a verdict needs.
 */
import { bootstrapGenerator, BOOTSTRAP_PRNG_NAME, IndexSampler } from './index-sampler.ts';
import { percentileInterval, seedFromString } from './bootstrap.ts';
import { belowMinimum, insufficientNote, MIN_PAIRS, SIGNIFICANCE_LEVEL } from './minimum-n.ts';
import type { PairedScoreComparison, ScoreConclusion } from './paired-score.ts';
import { wilcoxonSignedRank } from './rank-tests.ts';

const meanOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length;

export function comparePairedMeans(candidate: readonly number[], control: readonly number[], options: { resamples: number; seedId: string }): PairedScoreComparison {
  if (candidate.length !== control.length) throw new Error(`comparePairedMeans: paired samples differ in length (${candidate.length} vs ${control.length})`);
  const n = candidate.length;
  if (n === 0) throw new Error('comparePairedMeans: no pair');
  if (!Number.isInteger(options.resamples) || options.resamples < 1) throw new Error(`comparePairedMeans: resamples must be a positive integer, got ${options.resamples}`);
  const differences = candidate.map((c, i) => c - control[i]!);
  const bad = differences.findIndex((d) => !Number.isFinite(d));
  if (bad >= 0) throw new Error(`comparePairedMeans: pair ${bad} is not a pair of finite numbers`);
  const seed = seedFromString(options.seedId);
  const sampler = new IndexSampler(bootstrapGenerator(seed), n);
  const indices = new Int32Array(n);
  const replicates = new Float64Array(options.resamples);
  for (let r = 0; r < options.resamples; r++) {
    sampler.fill(indices);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += differences[indices[i]!]!;
    replicates[r] = sum / n;
  }
  const ci = percentileInterval(replicates.sort());
  const p = wilcoxonSignedRank(differences)?.p ?? null;
  const tooFew = belowMinimum(n);
  const agrees = p !== null && p < SIGNIFICANCE_LEVEL;
  let conclusion: ScoreConclusion = 'no detected difference';
  if (tooFew) conclusion = 'insufficient data';
  else if (agrees && ci.low > 0) conclusion = 'candidate higher';
  else if (agrees && ci.high < 0) conclusion = 'candidate lower';
  const notes = tooFew ? [insufficientNote(n)] : [];
  return {
    design: 'paired means',
    pairs: n,
    candidateMean: meanOf(candidate),
    controlMean: meanOf(control),
    difference: meanOf(differences),
    ci,
    p,
    table: null,
    conclusion,
    notes,
    method: `paired difference of mean scores over ${n} matched pairs; percentile 95% CI from ${options.resamples} pair resamples (${BOOTSTRAP_PRNG_NAME}, seed ${seed} (${options.seedId})); verdict needs the CI to exclude 0 and the signed-rank p < ${SIGNIFICANCE_LEVEL}${tooFew ? `, no verdict below ${MIN_PAIRS} pairs` : ''}`,
  };
}
