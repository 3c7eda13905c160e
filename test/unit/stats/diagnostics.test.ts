import { describe, expect, it } from 'vitest';
import { drift, madOutliers, variability } from '../../../harness/stats/index.ts';

describe('diagnostics flag, never delete', () => {
  it('MAD z-score: flags |0.6745·(x − median)/MAD| > 3.5 and keeps every value', () => {
    // median 11; |x − 11| = 1,1,0,0,1,1,89 → MAD 1; z(100) = 0.6745·89 ≈ 60 → flagged; z(12) = 0.67 → not.
    const r = madOutliers([10, 10, 11, 11, 12, 12, 100]);
    expect(r.flags).toEqual([false, false, false, false, false, false, true]);
    expect(r.count).toBe(1);
    // MAD = 0 (more than half the values equal): the modified z-score is undefined → absent, not 0.
    expect(madOutliers([5, 5, 5, 6])).toEqual({ flags: null, count: null });
  });

  it('drift: Spearman ρ of value against schedule position; called only from n ≥ 10 and p < 0.01', () => {
    const rising = Array.from({ length: 20 }, (_, i) => 100 + i);
    const positions = Array.from({ length: 20 }, (_, i) => i * 4);
    const d = drift(rising, positions)!;
    expect(d.rho).toBeCloseTo(1, 12);
    expect(d.drifting).toBe(true);
    expect(drift(rising.slice(0, 5), positions.slice(0, 5))!.drifting).toBe(false); // too few to call
    // Values fanning out above and below 100 in alternation: ρ = −0.075 (p = 0.74), no drift.
    const flat = Array.from({ length: 20 }, (_, i) => 100 + (i % 2 === 0 ? 1 : -1) * 0.01 * i);
    expect(drift(flat, positions)!.rho).toBeCloseTo(-0.075188, 5);
    expect(drift(flat, positions)!.drifting).toBe(false);
    expect(drift([1, 1, 1], [0, 1, 2])).toBeNull(); // constant values: ρ undefined
  });

  it('coefficient of variation warns above 10% (pyperf)', () => {
    // [9, 11]: mean 10, sample sd √2 → CV 0.1414 → warn; [99, 101]: CV 0.01414 → fine.
    expect(variability([9, 11])).toEqual({ cv: Math.SQRT2 / 10, warning: true });
    expect(variability([99, 101])!.warning).toBe(false);
    expect(variability([5])).toBeNull();
  });
});
