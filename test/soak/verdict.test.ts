import { describe, expect, it } from 'vitest';
import { judgeSeries, levelWindow, MIN_SAMPLES, soakPassed, type SeriesPoint } from '../../scripts/soak/verdict.ts';
import { resource, RESOURCES } from '../../scripts/soak/resources.ts';
import { createPrng } from '../../harness/plan/prng.ts';

const minutes = (values: readonly (number | null)[]): SeriesPoint[] => values.map((value, minute) => ({ minute, value }));
const hour = (f: (minute: number) => number | null) => minutes(Array.from({ length: 60 }, (_, m) => f(m)));

describe('the soak verdict: Theil–Sen interval above 0 AND end − start above the tolerance', () => {
  const containers = resource('podman.containers'); // tolerance 2
  const prng = createPrng(36);

  it('names a staircase leak (one container left per 4-minute cycle) as GROWS with its levels and slope', () => {
    const verdict = judgeSeries(containers, hour((m) => Math.floor(m / 4)));
    expect(verdict.verdict).toBe('GROWS');
    expect(verdict.start).toBe(0);
    expect(verdict.end).toBe(14);
    expect(verdict.slopePerHour).toBeCloseTo(15, 0);
    expect(verdict.lowerPerHour).toBeGreaterThan(0);
  });

  it('a resource that rises and falls with each cycle (containers of the run in flight) is bounded', () => {
    expect(judgeSeries(containers, hour((m) => [0, 4, 4, 0][m % 4]!)).verdict).toBe('bounded');
  });

  it('a one-time step (a cache filled once) is bounded: the ranks do not agree on a trend', () => {
    expect(judgeSeries(containers, hour((m) => (m < 30 ? 0 : 3))).verdict).toBe('bounded');
  });

  it('a real but small drift below the tolerance is bounded; the same drift ×10 GROWS', () => {
    const fds = resource('harness.fds'); // tolerance 8
    const small = judgeSeries(fds, hour((m) => 40 + Math.floor(m / 10) + (prng.float() < 0.5 ? 0 : 1)));
    expect(small.lowerPerHour).toBeGreaterThan(0);
    expect(small.verdict).toBe('bounded');
    expect(judgeSeries(fds, hour((m) => 40 + Math.floor(m / 1) + (prng.float() < 0.5 ? 0 : 1))).verdict).toBe('GROWS');
  });

  it('one outlier sample (another suite\'s 40 containers for a minute) does not make growth', () => {
    expect(judgeSeries(containers, hour((m) => (m === 55 ? 40 : 1))).verdict).toBe('bounded');
  });

  it('gaps (a backend not answering) are skipped; an all-gap series is unavailable; too few samples are said', () => {
    expect(judgeSeries(containers, hour((m) => (m % 2 ? null : Math.floor(m / 4)))).verdict).toBe('GROWS');
    expect(judgeSeries(containers, hour(() => null)).verdict).toBe('unavailable');
    expect(judgeSeries(containers, minutes(Array(MIN_SAMPLES - 1).fill(0))).verdict).toBe('too few samples');
  });

  it('expected growth and context are reported with their slope but never fail', () => {
    const bundles = judgeSeries(resource('bundles.written'), hour((m) => m));
    expect(bundles.verdict).toBe('expected growth');
    expect(bundles.slopePerHour).toBe(60);
    const load = judgeSeries(resource('load.1m'), hour((m) => m / 10));
    expect(load.verdict).toBe('context');
    expect(soakPassed([bundles, load])).toBe(true);
  });

  it('the soak fails on any GROWS and on a bounded resource it could not judge', () => {
    const ok = judgeSeries(containers, hour(() => 1));
    expect(soakPassed([ok])).toBe(true);
    expect(soakPassed([ok, judgeSeries(containers, hour((m) => m))])).toBe(false);
    expect(soakPassed([ok, judgeSeries(containers, minutes([1, 2]))])).toBe(false);
  });

  it('levels are medians of the first/last sixth, 1 to 5 samples', () => {
    expect([3, 12, 30, 60, 600].map(levelWindow)).toEqual([1, 2, 5, 5, 5]);
  });

  it('every resource has a unique id, a unit and a non-negative tolerance', () => {
    expect(new Set(RESOURCES.map((r) => r.id)).size).toBe(RESOURCES.length);
    for (const r of RESOURCES) expect(r.unit.length > 0 && r.tolerance >= 0).toBe(true);
  });
});
