/** Arrival modes (harness/schedule/arrival.ts): the spec's text, the safe labels, and the fixed offsets of staggered and seeded poisson arrivals. */
import { describe, expect, it } from 'vitest';
import { arrivalLabel, arrivalOf, arrivalToText, ArrivalTextSchema, fixedArrivalOffsetsMs, parseArrival } from '../../../harness/schedule/index.ts';

describe('parseArrival', () => {
  it('reads the four modes and round-trips their text', () => {
    expect(parseArrival('closed')).toEqual({ mode: 'closed' });
    expect(parseArrival('burst(64)')).toEqual({ mode: 'burst', size: 64 });
    expect(parseArrival('staggered(250ms)')).toEqual({ mode: 'staggered', intervalMs: 250 });
    expect(parseArrival('staggered(2s)')).toEqual({ mode: 'staggered', intervalMs: 2000 });
    expect(parseArrival(' poisson( 8/s ) ')).toEqual({ mode: 'poisson', perSecond: 8 });
    for (const text of ['closed', 'burst(64)', 'staggered(250ms)', 'poisson(0.5)']) expect(arrivalToText(arrivalOf(text))).toBe(text);
  });

  it('refuses malformed modes with the reason and the expected syntax', () => {
    expect(parseArrival('open')).toEqual({ error: expect.stringContaining('burst(N)') });
    expect(parseArrival('burst(0)')).toEqual({ error: expect.stringContaining('positive whole number') });
    expect(parseArrival('burst(1.5)')).toEqual({ error: expect.stringContaining('positive whole number') });
    expect(parseArrival('staggered(fast)')).toEqual({ error: expect.stringContaining('positive duration') });
    expect(parseArrival('poisson(-2)')).toEqual({ error: expect.stringContaining('positive rate') });
    expect(() => arrivalOf('burst()')).toThrow(/burst\(\)/);
    const parsed = ArrivalTextSchema.safeParse('poisson(0)');
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toMatch(/poisson\(0\)/);
  });

  it('labels are safe in trial ids, container and cgroup names', () => {
    for (const text of ['closed', 'burst(64)', 'staggered(250ms)', 'poisson(0.5)']) expect(arrivalLabel(arrivalOf(text))).toMatch(/^[a-z][a-z0-9.]*$/);
    expect(arrivalLabel(arrivalOf('burst(64)'))).toBe('burst64');
  });
});

describe('fixedArrivalOffsetsMs', () => {
  it('staggered(Δ): job i at i·Δ; closed and burst have no fixed offsets', () => {
    expect(fixedArrivalOffsetsMs(arrivalOf('staggered(250ms)'), 4, 1)).toEqual([0, 250, 500, 750]);
    expect(fixedArrivalOffsetsMs(arrivalOf('closed'), 4, 1)).toBeNull();
    expect(fixedArrivalOffsetsMs(arrivalOf('burst(2)'), 4, 1)).toBeNull();
  });

  it('poisson(λ): reproducible from the seed, exponential gaps of mean 1/λ', () => {
    const arrival = arrivalOf('poisson(8)');
    const a = fixedArrivalOffsetsMs(arrival, 20_001, 42)!;
    expect(fixedArrivalOffsetsMs(arrival, 20_001, 42)).toEqual(a);
    expect(fixedArrivalOffsetsMs(arrival, 20_001, 43)).not.toEqual(a);
    expect(a[0]).toBe(0);
    const gaps = a.slice(1).map((t, i) => t - a[i]!);
    expect(gaps.every((g) => g >= 0)).toBe(true);
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length;
    // 20,000 Exp(mean 125 ms) gaps: the mean's sd is 125/√20000 ≈ 0.9 ms, so ±3% is > 4 sd
    expect(mean).toBeGreaterThan(125 * 0.97);
    expect(mean).toBeLessThan(125 * 1.03);
    // memoryless: P(gap > mean) = e^-1 ≈ 0.368 (sd of the fraction ≈ 0.0034)
    const above = gaps.filter((g) => g > 125).length / gaps.length;
    expect(above).toBeGreaterThan(0.35);
    expect(above).toBeLessThan(0.386);
  });
});
