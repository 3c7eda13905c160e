/**
 * Bootstrap replicates of log(statistic(candidate) / statistic(baseline)) for a type-7 quantile
 * (P50, P90, P95), in the three designs the gate uses:
 *   paired       — one bundle, two arms interleaved in every block: whole blocks are resampled, the
 *                  same index for both arms, so block (and run) offsets shared by the arms cancel;
 *   independent  — two runs: each side resampled on its own (within-run variance only);
 *   hierarchical — several runs per side: runs are resampled, then blocks within each drawn run
 *                  (Davison & Hinkley 1997, §3.8), so the interval includes the run-level offset.
 * Log scale because timing effects are multiplicative and the limit is a ratio. Pure: arrays and a
 * seed in, replicates out.
 */
import { bootstrapGenerator, IndexSampler } from './index-sampler.ts';
import { quantileSorted, sortedAscending } from './quantile.ts';

/** Type-7 quantile p of a resample given how often each order statistic was drawn (counts sum to n). */
export function quantileFromCounts(counts: Int32Array, sorted: Float64Array, p: number): number {
  const n = sorted.length;
  const h = (n - 1) * p;
  const lowPosition = Math.floor(h);
  const fraction = h - lowPosition;
  let r = 0;
  let cumulative = counts[0]!;
  while (cumulative <= lowPosition) cumulative += counts[++r]!;
  const low = sorted[r]!;
  if (fraction === 0) return low;
  while (cumulative <= lowPosition + 1) cumulative += counts[++r]!;
  return low + fraction * (sorted[r]! - low);
}

interface Ranked {
  sorted: Float64Array;
  rankOf: Int32Array;
}

function rank(values: ArrayLike<number>): Ranked {
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
  const sorted = new Float64Array(n);
  const rankOf = new Int32Array(n);
  order.forEach((original, r) => {
    sorted[r] = values[original]!;
    rankOf[original] = r;
  });
  return { sorted, rankOf };
}

export function logStatistic(values: ArrayLike<number>, p: number): number {
  return Math.log(quantileSorted(sortedAscending(values), p));
}

/** How a replicate's two statistics combine: log ratio (the gate) or difference (when the ratio is undefined). */
export type Combine = (candidate: number, baseline: number) => number;
export const logRatio: Combine = (c, b) => Math.log(c / b);
export const difference: Combine = (c, b) => c - b;

/** Paired blocks: candidate[i] and baseline[i] share block i. */
export function pairedLogRatioReplicates(candidate: ArrayLike<number>, baseline: ArrayLike<number>, p: number, resamples: number, seed: number, combine: Combine = logRatio): Float64Array {
  const n = candidate.length;
  if (n !== baseline.length) throw new Error(`pairedLogRatioReplicates: ${n} candidate vs ${baseline.length} baseline blocks`);
  const c = rank(candidate);
  const b = rank(baseline);
  const countsC = new Int32Array(n);
  const countsB = new Int32Array(n);
  const blocks = new Int32Array(n);
  const sampler = new IndexSampler(bootstrapGenerator(seed), n);
  const out = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    countsC.fill(0);
    countsB.fill(0);
    sampler.fill(blocks);
    for (let i = 0; i < n; i++) {
      countsC[c.rankOf[blocks[i]!]!]!++;
      countsB[b.rankOf[blocks[i]!]!]!++;
    }
    out[r] = combine(quantileFromCounts(countsC, c.sorted, p), quantileFromCounts(countsB, b.sorted, p));
  }
  return out;
}

/** One side's resampling state: a sorted run and its sampler. */
class RunResampler {
  private readonly sorted: Float64Array;
  private readonly counts: Int32Array;
  private readonly draws: Int32Array;
  private readonly sampler: IndexSampler;
  constructor(values: ArrayLike<number>, generator: ReturnType<typeof bootstrapGenerator>) {
    this.sorted = sortedAscending(values);
    this.counts = new Int32Array(values.length);
    this.draws = new Int32Array(values.length);
    this.sampler = new IndexSampler(generator, values.length);
  }
  /** The statistic of one resample of this run's values. */
  raw(p: number): number {
    this.counts.fill(0);
    this.sampler.fill(this.draws);
    for (let i = 0; i < this.draws.length; i++) this.counts[this.draws[i]!]!++;
    return quantileFromCounts(this.counts, this.sorted, p);
  }
  /** log statistic of one resample of this run's values. */
  next(p: number): number {
    return Math.log(this.raw(p));
  }
}

export function independentLogRatioReplicates(candidate: ArrayLike<number>, baseline: ArrayLike<number>, p: number, resamples: number, seed: number, combine: Combine = logRatio): Float64Array {
  const generator = bootstrapGenerator(seed);
  const c = new RunResampler(candidate, generator);
  const b = new RunResampler(baseline, generator);
  const out = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) out[r] = combine(c.raw(p), b.raw(p));
  return out;
}

export interface HierarchicalOptions {
  p: number;
  resamples: number;
  seed: number;
  /**
   * Run-level sd (log scale) added, as a normal draw, to a side that has a single run (its own run
   * offset cannot be resampled). 0 when unknown: the caller must then say it is not covered.
   */
  singleRunSd: number;
}

/**
 * The log statistic of one side per replicate: k runs drawn with replacement, each resampled
 * within; the side's value is the mean of the drawn runs' log statistics, with run deviations
 * scaled by √(k/(k−1)) (the usual small-k correction: a bootstrap of k run means has variance
 * (k−1)/k of the unbiased one).
 */
function sideReplicate(runs: RunResampler[], p: number, pickRun: () => number, scratch: Float64Array): number {
  const k = runs.length;
  let mean = 0;
  for (let j = 0; j < k; j++) {
    scratch[j] = runs[pickRun()]!.next(p);
    mean += scratch[j]!;
  }
  mean /= k;
  return mean;
}

export interface HierarchicalResult {
  replicates: Float64Array;
  /** Observed log ratio: mean of candidate runs' log statistics − mean of baseline runs'. */
  estimate: number;
  /** Between-run variance (log scale) estimated from the sides with ≥ 2 runs (pooled), net of within-run variance; null when no side has 2 runs. */
  betweenRunVariance: number | null;
  /** Degrees of freedom of that estimate: Σ (runs − 1) over the sides. */
  betweenRunDf: number;
}

/** Pooled between-run variance of the runs' log statistics minus their mean within-run bootstrap variance (method of moments, floored at 0). */
export function betweenRunVariance(sides: number[][][], p: number, seed: number, resamples = 400): { variance: number | null; df: number } {
  let ss = 0;
  let df = 0;
  let within = 0;
  let runs = 0;
  const generator = bootstrapGenerator(seed ^ 0x5bd1e995);
  for (const side of sides) {
    if (side.length < 2) continue;
    const logs = side.map((run) => logStatistic(run, p));
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    ss += logs.reduce((a, b) => a + (b - mean) ** 2, 0);
    df += side.length - 1;
    for (const run of side) {
      const resampler = new RunResampler(run, generator);
      let s = 0;
      let s2 = 0;
      for (let r = 0; r < resamples; r++) {
        const v = resampler.next(p);
        s += v;
        s2 += v * v;
      }
      within += (s2 - (s * s) / resamples) / (resamples - 1);
      runs++;
    }
  }
  if (df === 0) return { variance: null, df: 0 };
  return { variance: Math.max(0, ss / df - within / runs), df };
}

export function hierarchicalLogRatioReplicates(candidateRuns: number[][], baselineRuns: number[][], options: HierarchicalOptions): HierarchicalResult {
  const { p, resamples, seed } = options;
  if (candidateRuns.length === 0 || baselineRuns.length === 0) throw new Error('hierarchicalLogRatioReplicates: each side needs at least one run');
  const generator = bootstrapGenerator(seed);
  const make = (runs: number[][]) => runs.map((r) => new RunResampler(r, generator));
  const c = make(candidateRuns);
  const b = make(baselineRuns);
  const pickC = new IndexSampler(generator, c.length);
  const pickB = new IndexSampler(generator, b.length);
  const one = new Int32Array(1);
  const picker = (sampler: IndexSampler) => () => {
    sampler.fill(one);
    return one[0]!;
  };
  const observed = (runs: number[][]) => runs.map((r) => logStatistic(r, p));
  const obsC = observed(candidateRuns);
  const obsB = observed(baselineRuns);
  const mean = (x: number[]) => x.reduce((a, v) => a + v, 0) / x.length;
  const estimate = mean(obsC) - mean(obsB);
  const between = betweenRunVariance([candidateRuns, baselineRuns], p, seed);
  const scratchC = new Float64Array(c.length);
  const scratchB = new Float64Array(b.length);
  // Box–Muller normals for a single-run side's offset, from the same seeded stream.
  const uniform = () => (generator.unsafeNext() + 0x80000000 + 0.5) / 4294967296;
  const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  const scale = (k: number) => (k >= 2 ? Math.sqrt(k / (k - 1)) : 1);
  const centre = (replicate: number, observedMean: number, k: number) => observedMean + scale(k) * (replicate - observedMean);
  const meanC = mean(obsC);
  const meanB = mean(obsB);
  const nextC = picker(pickC);
  const nextB = picker(pickB);
  const out = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sc = centre(sideReplicate(c, p, nextC, scratchC), meanC, c.length);
    let sb = centre(sideReplicate(b, p, nextB, scratchB), meanB, b.length);
    if (c.length === 1 && options.singleRunSd > 0) sc += options.singleRunSd * normal();
    if (b.length === 1 && options.singleRunSd > 0) sb += options.singleRunSd * normal();
    out[r] = sc - sb;
  }
  return { replicates: out, estimate, betweenRunVariance: between.variance, betweenRunDf: between.df };
}
