/**
 * A combined candidate-vs-control estimate across hosts without pooling: host is a blocking factor
 * (stratum), so each host's paired difference (and ratio) of medians is computed on that host's
 * blocks alone, and the hosts' estimates are combined with weights proportional to their blocks.
 * The interval comes from a stratified bootstrap (Efron & Tibshirani 1993, §3.6 / Davison & Hinkley
 * 1997, §3.2): each resample draws n_h blocks with replacement *within* every host h, never across
 * hosts, so host-to-host differences never leak into the within-host spread.
 * Pure: arrays and a seed in, a plain object out.
 */
import { percentileInterval, type Interval } from './bootstrap.ts';
import { bootstrapGenerator, BOOTSTRAP_PRNG_NAME, IndexSampler } from './index-sampler.ts';
import { median } from './quantile.ts';

export interface Stratum {
  /** Host key. */
  key: string;
  /** candidate[i] and control[i] come from the same block on this host. */
  candidate: number[];
  control: number[];
}

export interface StratumEstimate {
  key: string;
  n_blocks: number;
  weight: number;
  difference: number;
  ratio: number;
}

export interface StratifiedEstimate {
  n_blocks: number;
  difference: number;
  difference_ci: Interval;
  /** Weighted geometric mean of the hosts' median ratios; null when a median is ≤ 0 (a ratio has no log). */
  ratio: number | null;
  ratio_ci: Interval | null;
  strata: StratumEstimate[];
  resamples: number;
  seed: number;
  prng: string;
}

function validate(strata: readonly Stratum[], resamples: number): void {
  if (strata.length === 0) throw new Error('stratifiedBootstrap: no strata');
  if (!Number.isInteger(resamples) || resamples < 1) throw new Error(`stratifiedBootstrap: resamples must be a positive integer, got ${resamples}`);
  const keys = new Set<string>();
  for (const s of strata) {
    if (keys.has(s.key)) throw new Error(`stratifiedBootstrap: stratum ${s.key} given twice`);
    keys.add(s.key);
    if (s.candidate.length === 0 || s.candidate.length !== s.control.length) {
      throw new Error(`stratifiedBootstrap: stratum ${s.key} needs equal, non-zero numbers of paired values (candidate ${s.candidate.length}, control ${s.control.length})`);
    }
    for (const v of [...s.candidate, ...s.control]) if (!Number.isFinite(v)) throw new Error(`stratifiedBootstrap: stratum ${s.key} holds a non-finite value ${v}`);
  }
}

/** Weights n_h / Σn: the campaign's own allocation of blocks to hosts (a host that ran more blocks is estimated better). */
function weights(strata: readonly Stratum[]): number[] {
  const total = strata.reduce((sum, s) => sum + s.candidate.length, 0);
  return strata.map((s) => s.candidate.length / total);
}

/** Ratios combine multiplicatively, so across hosts they are averaged on the log scale. */
function combine(differences: ArrayLike<number>, ratios: ArrayLike<number>, w: readonly number[]): { difference: number; ratio: number | null } {
  let difference = 0;
  let logRatio = 0;
  let ratioDefined = true;
  for (let h = 0; h < w.length; h++) {
    difference += w[h]! * differences[h]!;
    const r = ratios[h]!;
    if (!(r > 0) || !Number.isFinite(r)) ratioDefined = false;
    else logRatio += w[h]! * Math.log(r);
  }
  return { difference, ratio: ratioDefined ? Math.exp(logRatio) : null };
}

export function stratifiedBootstrap(strata: readonly Stratum[], options: { resamples: number; seed: number }): StratifiedEstimate {
  validate(strata, options.resamples);
  const ordered = [...strata].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const w = weights(ordered);
  const observedDiff = ordered.map((s) => median(s.candidate) - median(s.control));
  const observedRatio = ordered.map((s) => median(s.candidate) / median(s.control));
  const observed = combine(observedDiff, observedRatio, w);

  const generator = bootstrapGenerator(options.seed);
  const samplers = ordered.map((s) => new IndexSampler(generator, s.candidate.length));
  const draws = ordered.map((s) => new Int32Array(s.candidate.length));
  const diffReplicates = new Float64Array(options.resamples);
  const ratioReplicates = new Float64Array(options.resamples);
  let ratioAlwaysDefined = observed.ratio !== null;
  const d = new Float64Array(ordered.length);
  const r = new Float64Array(ordered.length);
  const scratch = ordered.map((s) => ({ c: new Float64Array(s.candidate.length), k: new Float64Array(s.candidate.length) }));
  for (let b = 0; b < options.resamples; b++) {
    ordered.forEach((s, h) => {
      const n = s.candidate.length;
      const { c, k } = scratch[h]!;
      const blocks = draws[h]!;
      samplers[h]!.fill(blocks);
      // Whole blocks are drawn, the same index for both arms: the within-host pairing survives.
      for (let i = 0; i < n; i++) {
        const block = blocks[i]!;
        c[i] = s.candidate[block]!;
        k[i] = s.control[block]!;
      }
      const mc = median(c);
      const mk = median(k);
      d[h] = mc - mk;
      r[h] = mc / mk;
    });
    const replicate = combine(d, r, w);
    diffReplicates[b] = replicate.difference;
    if (replicate.ratio === null) ratioAlwaysDefined = false;
    else ratioReplicates[b] = replicate.ratio;
  }
  return {
    n_blocks: ordered.reduce((sum, s) => sum + s.candidate.length, 0),
    difference: observed.difference,
    // Percentile interval, as comparisons.csv reports (harness/stats/compare.ts).
    difference_ci: percentileInterval(diffReplicates.sort()),
    ratio: observed.ratio,
    ratio_ci: ratioAlwaysDefined ? percentileInterval(ratioReplicates.sort()) : null,
    strata: ordered.map((s, h) => ({ key: s.key, n_blocks: s.candidate.length, weight: w[h]!, difference: observedDiff[h]!, ratio: observedRatio[h]! })),
    resamples: options.resamples,
    seed: options.seed,
    prng: BOOTSTRAP_PRNG_NAME,
  };
}
