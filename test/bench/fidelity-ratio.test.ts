/**
 * The fidelity bench's ratio CI resamples whole rounds (bench/fidelity.bench.ts): run-to-run shifts
 * that move a round's samples together must widen the interval, and a steady ratio must not.
 */
import { describe, expect, it } from 'vitest';
import { judge, roundBootstrapRatio } from '../../bench/fidelity.bench.ts';

const round = (sandbench: number, hyperfine: number) => ({ sandbench: Array.from({ length: 10 }, (_, k) => sandbench + k * 0.001), hyperfine: Array.from({ length: 10 }, (_, k) => hyperfine + k * 0.001) });

describe('fidelity ratio over rounds', () => {
  it('a steady ratio gives a tight interval around it', () => {
    const result = roundBootstrapRatio(Array.from({ length: 8 }, () => round(1.1, 1.0)), 2000, 1);
    expect(result.ratio).toBeCloseTo(1.1, 2);
    expect(result.ci95.high - result.ci95.low).toBeLessThan(0.01);
  });

  it('rounds whose sandbench run sits 20% apart (a run-level shift) widen the interval to cover both', () => {
    const rounds = Array.from({ length: 8 }, (_, k) => round(k % 2 === 0 ? 0.9 : 1.1, 1.0));
    const result = roundBootstrapRatio(rounds, 2000, 1);
    expect(result.ci95.low).toBeLessThan(0.95);
    expect(result.ci95.high).toBeGreaterThan(1.05);
  });

  it('judges outside the goal only when the whole CI is outside it', () => {
    expect(judge(1.0, { low: 0.9, high: 1.1 })).toBe('within goal');
    expect(judge(1.2, { low: 1.16, high: 1.3 })).toBe('ABOVE 1.15');
    expect(judge(0.9, { low: 0.85, high: 0.93 })).toBe('BELOW 0.95 (timing bug?)');
    expect(judge(0.94, { low: 0.85, high: 1.05 })).toBe('outside by the point, CI overlaps the goal');
  });
});
