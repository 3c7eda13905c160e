/**
 * Paired binary outcomes (did attempt k succeed in arm A, in arm B?): the difference in success
 * proportion over matched pairs with Newcombe's interval, and McNemar's exact test.
 *
 * - McNemar's exact test (McNemar 1947; the exact conditional form): under H0 the discordant pairs
 *   split 50/50, so the two-sided p is min(1, 2·P(X ≤ min(b, c))) with X ~ Binomial(b + c, ½) — as
 *   statsmodels' `mcnemar(exact=True)` and R's `binom.test(b, b + c)`.
 * - The interval is Newcombe's method 10 (Newcombe 1998, Stat Med 17:2635–2650: Wilson score limits
 *   of each marginal proportion, combined "square-and-add" with the correlation φ of the pairs,
 *   φ corrected towards 0 by N/2 as published). Chosen over a paired bootstrap because rewards are
 *   binary and the pairs few (8 attempts per cell is typical): a bootstrap of a 0/1 difference has
 *   a lattice of n + 1 values and collapses to a point when every pair agrees, while method 10
 *   stays inside [−1, 1], is deterministic (no seed), and held near-nominal coverage in Newcombe's
 *   evaluation (and in Fagerland, Lydersen & Laake 2014, Stat Methods Med Res 24:224, which
 *   recommend it for paired differences).
 */
import { belowMinimum, insufficientNote, MIN_PAIRS, SIGNIFICANCE_LEVEL } from './minimum-n.ts';
import type { Interval } from './bootstrap.ts';
import type { PairedScoreComparison, PairedTable, ScoreConclusion } from './paired-score.ts';
import { wilsonInterval } from './wilson.ts';

/** P(X ≤ k) for X ~ Binomial(n, ½), summed in log space so n in the thousands neither overflows nor underflows. */
function binomialHalfCdf(k: number, n: number): number {
  let logTerm = -n * Math.LN2; // log C(n, 0) / 2^n
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += Math.exp(logTerm);
    logTerm += Math.log((n - i) / (i + 1));
  }
  return Math.min(1, sum);
}

/** McNemar's exact two-sided p from the discordant counts b (candidate only) and c (control only); 1 when there is no discordant pair. */
export function mcnemarExactP(b: number, c: number): number {
  for (const [name, v] of [['b', b], ['c', c]] as const) if (!Number.isInteger(v) || v < 0) throw new Error(`mcnemarExactP: ${name} must be a count, got ${v}`);
  const n = b + c;
  if (n === 0) return 1;
  return Math.min(1, 2 * binomialHalfCdf(Math.min(b, c), n));
}

function total(t: PairedTable): number {
  return t.both + t.candidateOnly + t.controlOnly + t.neither;
}

/**
 * Newcombe's method 10 interval for p_candidate − p_control (the paired difference), at `level`.
 * Null when the table is empty.
 */
export function newcombePairedInterval(t: PairedTable, level = 0.95): Interval | null {
  for (const [name, v] of Object.entries(t)) if (!Number.isInteger(v) || v < 0) throw new Error(`newcombePairedInterval: ${name} must be a count, got ${v}`);
  const n = total(t);
  if (n === 0) return null;
  const candidateSuccesses = t.both + t.candidateOnly;
  const controlSuccesses = t.both + t.controlOnly;
  const p1 = candidateSuccesses / n;
  const p2 = controlSuccesses / n;
  const w1 = wilsonInterval(candidateSuccesses, n, level);
  const w2 = wilsonInterval(controlSuccesses, n, level);
  // φ: the correlation of the two outcomes over the pairs, 0 when a margin is empty; Newcombe's
  // correction moves a positive ad − bc towards 0 by n/2 (and to 0 when it is within n/2).
  const margins = candidateSuccesses * (n - candidateSuccesses) * controlSuccesses * (n - controlSuccesses);
  let phi = 0;
  if (margins > 0) {
    const cross = t.both * t.neither - t.candidateOnly * t.controlOnly;
    phi = cross > n / 2 ? (cross - n / 2) / Math.sqrt(margins) : cross < 0 ? cross / Math.sqrt(margins) : 0;
  }
  const difference = p1 - p2;
  const dl1 = p1 - w1.low;
  const du1 = w1.high - p1;
  const dl2 = p2 - w2.low;
  const du2 = w2.high - p2;
  const lowHalf = Math.sqrt(Math.max(0, dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2));
  const highHalf = Math.sqrt(Math.max(0, dl2 * dl2 - 2 * phi * dl2 * du1 + du1 * du1));
  return { low: Math.max(-1, difference - lowHalf), high: Math.min(1, difference + highHalf) };
}

/** The 2×2 table of matched 0/1 outcomes (candidate[i] and control[i] are one pair). */
export function pairedTable(candidate: readonly number[], control: readonly number[]): PairedTable {
  if (candidate.length !== control.length) throw new Error(`pairedTable: paired samples differ in length (${candidate.length} vs ${control.length})`);
  const t: PairedTable = { both: 0, candidateOnly: 0, controlOnly: 0, neither: 0 };
  candidate.forEach((c, i) => {
    const k = control[i]!;
    if ((c !== 0 && c !== 1) || (k !== 0 && k !== 1)) throw new Error(`pairedTable: pair ${i} is (${c}, ${k}); paired proportions need 0/1 outcomes`);
    if (c === 1 && k === 1) t.both++;
    else if (c === 1) t.candidateOnly++;
    else if (k === 1) t.controlOnly++;
    else t.neither++;
  });
  return t;
}

/**
 * Success rates of two arms over matched pairs: the difference with Newcombe's interval and
 * McNemar's exact p. A verdict needs the interval to exclude 0 AND p < 0.05 (the two can disagree at
 * the margin; the same agreement rule as the medians' interval and rank test), and ≥ MIN_PAIRS pairs.
 */
export function comparePairedProportions(candidate: readonly number[], control: readonly number[]): PairedScoreComparison {
  const table = pairedTable(candidate, control);
  const n = candidate.length;
  if (n === 0) throw new Error('comparePairedProportions: no pair');
  const candidateMean = (table.both + table.candidateOnly) / n;
  const controlMean = (table.both + table.controlOnly) / n;
  const ci = newcombePairedInterval(table);
  const p = mcnemarExactP(table.candidateOnly, table.controlOnly);
  const tooFew = belowMinimum(n);
  const notes: string[] = [];
  if (tooFew) notes.push(insufficientNote(n));
  const excludesZero = ci !== null && (ci.low > 0 || ci.high < 0);
  if (!tooFew && excludesZero !== p < SIGNIFICANCE_LEVEL) notes.push(`Newcombe's interval and McNemar's test disagree (p = ${p.toPrecision(3)}): no verdict`);
  let conclusion: ScoreConclusion = 'no detected difference';
  if (tooFew) conclusion = 'insufficient data';
  else if (excludesZero && p < SIGNIFICANCE_LEVEL) conclusion = ci!.low > 0 ? 'candidate higher' : 'candidate lower';
  return {
    design: 'paired proportions',
    pairs: n,
    candidateMean,
    controlMean,
    difference: candidateMean - controlMean,
    ci,
    p,
    table,
    conclusion,
    notes,
    method: `paired difference in success rate over ${n} matched pairs (${table.candidateOnly} candidate-only, ${table.controlOnly} control-only successes); 95% CI Newcombe 1998 method 10; McNemar exact p; verdict needs both at 5%${tooFew ? `, no verdict below ${MIN_PAIRS} pairs` : ''}`,
  };
}
