/**
 * Paired proportions against references computed elsewhere:
 * - McNemar's exact p: statsmodels 0.15.0 (scipy 1.17.1), computed once with
 *     python3 -m venv /tmp/scipyvenv && /tmp/scipyvenv/bin/pip install scipy statsmodels
 *     from statsmodels.stats.contingency_tables import mcnemar
 *     mcnemar(np.array([[both, candidate_only], [control_only, neither]]), exact=True).pvalue
 * - Newcombe's method 10 interval: the worked example of Fagerland, Lydersen & Laake, "Statistical
 *   Analysis of Contingency Tables" (2017), ch. 8 — complete response before and after consolidation
 *   therapy (Cavo et al. 2012), table [[59, 6], [16, 80]]: estimate −0.0621, 95% CI −0.1186 to
 *   −0.0046, McNemar exact conditional p 0.052479 (the values the authors' R package
 *   contingencytables asserts in its chapter-8 tests).
 */
import { describe, expect, it } from 'vitest';
import { comparePairedProportions, comparePairedScores, mcnemarExactP, newcombePairedInterval, pairedTable } from '../../../harness/stats/index.ts';

/** 0/1 outcome vectors realising a 2×2 table, pairs in a fixed order. */
function outcomes(both: number, candidateOnly: number, controlOnly: number, neither: number): { candidate: number[]; control: number[] } {
  const pairs: [number, number][] = [
    ...Array.from({ length: both }, (): [number, number] => [1, 1]),
    ...Array.from({ length: candidateOnly }, (): [number, number] => [1, 0]),
    ...Array.from({ length: controlOnly }, (): [number, number] => [0, 1]),
    ...Array.from({ length: neither }, (): [number, number] => [0, 0]),
  ];
  return { candidate: pairs.map((p) => p[0]), control: pairs.map((p) => p[1]) };
}

describe('McNemar exact test', () => {
  it.each([
    // [both, candidateOnly, controlOnly, neither, statsmodels p]
    [59, 6, 16, 80, 0.052478790283203125],
    [1, 1, 7, 12, 0.0703125],
    [3, 5, 0, 2, 0.0625],
    [4, 1, 1, 2, 1.0],
    [10, 0, 0, 1, 1.0],
    [200, 40, 70, 190, 0.005447429511444476],
  ])('table [[%i, %i], [%i, %i]] → p = %f (statsmodels)', (both, b, c, neither, reference) => {
    expect(mcnemarExactP(b, c)).toBeCloseTo(reference, 12);
    expect(comparePairedProportions(outcomes(both, b, c, neither).candidate, outcomes(both, b, c, neither).control).p).toBeCloseTo(reference, 12);
  });

  it('is symmetric in the discordant counts and refuses non-counts', () => {
    expect(mcnemarExactP(16, 6)).toBe(mcnemarExactP(6, 16));
    expect(() => mcnemarExactP(-1, 3)).toThrow(/count/);
    expect(() => mcnemarExactP(1.5, 3)).toThrow(/count/);
  });
});

describe('Newcombe method 10 interval for a paired difference', () => {
  it('reproduces the Cavo et al. worked example (Fagerland et al. 2017, ch. 8)', () => {
    const table = { both: 59, candidateOnly: 6, controlOnly: 16, neither: 80 };
    const ci = newcombePairedInterval(table)!;
    expect(ci.low).toBeCloseTo(-0.1186, 4);
    expect(ci.high).toBeCloseTo(-0.0046, 4);
    const { candidate, control } = outcomes(59, 6, 16, 80);
    const result = comparePairedProportions(candidate, control);
    expect(result.difference).toBeCloseTo(-0.0621, 4);
    expect(result.table).toEqual(table);
    // The interval excludes 0 but McNemar's p is 0.052: the two disagree, so no verdict.
    expect(result.conclusion).toBe('no detected difference');
    expect(result.notes.join(' ')).toMatch(/disagree/);
  });

  it('stays inside [-1, 1], is a point-free interval when every pair agrees, and is null for no pair', () => {
    const agree = newcombePairedInterval({ both: 4, candidateOnly: 0, controlOnly: 0, neither: 4 })!;
    expect(agree.low).toBeLessThan(0);
    expect(agree.high).toBeGreaterThan(0);
    const extreme = newcombePairedInterval({ both: 0, candidateOnly: 8, controlOnly: 0, neither: 0 })!;
    expect(extreme.high).toBeLessThanOrEqual(1);
    expect(extreme.low).toBeGreaterThan(0);
    expect(newcombePairedInterval({ both: 0, candidateOnly: 0, controlOnly: 0, neither: 0 })).toBeNull();
  });
});

describe('comparePairedProportions verdicts', () => {
  it('calls a difference only when the interval and McNemar agree, and never below 6 pairs', () => {
    const { candidate, control } = outcomes(200, 40, 70, 190);
    const lower = comparePairedProportions(candidate, control);
    expect(lower.conclusion).toBe('candidate lower');
    expect(lower.ci!.high).toBeLessThan(0);
    const few = outcomes(0, 5, 0, 0);
    expect(comparePairedProportions(few.candidate, few.control).conclusion).toBe('insufficient data');
    expect(() => pairedTable([1, 0.5], [1, 0])).toThrow(/0\/1/);
  });

  it('comparePairedScores picks proportions for 0/1 scores and paired means otherwise', () => {
    const binary = comparePairedScores([1, 0, 1, 1, 0, 1, 1, 1], [1, 0, 0, 1, 0, 1, 0, 1], { resamples: 500, seedId: 't' });
    expect(binary.design).toBe('paired proportions');
    expect(binary.difference).toBeCloseTo(2 / 8, 12);
    const partial = comparePairedScores([0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.8, 0.75], [0.5, 0.4, 0.6, 0.45, 0.5, 0.55, 0.4, 0.5], { resamples: 2000, seedId: 't' });
    expect(partial.design).toBe('paired means');
    expect(partial.difference).toBeCloseTo(0.83125 - 0.4875, 12);
    expect(partial.ci!.low).toBeGreaterThan(0);
    expect(partial.conclusion).toBe('candidate higher');
    // Same seed id, same interval.
    expect(comparePairedScores([0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.8, 0.75], [0.5, 0.4, 0.6, 0.45, 0.5, 0.55, 0.4, 0.5], { resamples: 2000, seedId: 't' }).ci).toEqual(partial.ci);
  });
});
