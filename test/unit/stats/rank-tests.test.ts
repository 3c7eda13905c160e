import { describe, expect, it } from 'vitest';
import { hodgesLehmannPaired, hodgesLehmannShift, mannWhitneyU, wilcoxonSignedRank } from '../../../harness/stats/index.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

describe('Mann–Whitney U', () => {
  it('exact two-sided p on a small sample without ties', () => {
    // x = 1,2,3 vs y = 4,5,6: U = 0; only 1 of C(6,3) = 20 equally likely rank sets gives U = 0,
    // so p = 2 · 1/20 = 0.1 (R: wilcox.test(1:3, 4:6) → W = 0, p-value = 0.1).
    expect(mannWhitneyU([1, 2, 3], [4, 5, 6])).toMatchObject({ statistic: 0, p: 0.1, method: 'exact' });
    // x = 1,3 vs y = 2,4: U = 1 (only 3 > 2); P(U ≤ 1) = 2/6 (U=0: {1,2}; U=1: {1,3}) → p = 2·2/6 = 2/3.
    const r = mannWhitneyU([1, 3], [2, 4]);
    expect(r.statistic).toBe(1);
    expect(r.p).toBeCloseTo(2 / 3, 12);
  });

  it('normal approximation with tie and continuity corrections when there are ties', () => {
    // x = 1,2 vs y = 2,3: mid-ranks 1, 2.5 | 2.5, 4 → W = 3.5 − 3 = 0.5, centre 2.
    // σ² = (2·2/12)·(5 − (2³ − 2)/(4·3)) = (1/3)·4.5 = 1.5; z = (0.5 − 2 + 0.5)/√1.5 = −0.816497
    // p = 2Φ(−0.816497) = 0.414216 (R: wilcox.test(c(1,2), c(2,3)) → p-value = 0.4142).
    const r = mannWhitneyU([1, 2], [2, 3]);
    expect(r.method).toBe('normal approximation');
    expect(r.statistic).toBe(0.5);
    expect(r.p).toBeCloseTo(0.414216, 5);
  });
});

describe('Wilcoxon signed-rank', () => {
  it('exact p: all five differences positive → V = 15, p = 2/32', () => {
    // Each of the 2⁵ sign patterns is equally likely; only "all +" gives V = 15 (R: psignrank).
    expect(wilcoxonSignedRank([1, 2, 3, 4, 5])).toMatchObject({ statistic: 15, p: 0.0625, method: 'exact' });
  });

  it('exact p: one negative smallest difference → V = 14, P(V ≥ 14) = 2/32, p = 0.125', () => {
    expect(wilcoxonSignedRank([-1, 2, 3, 4, 5])).toMatchObject({ statistic: 14, p: 0.125 });
  });

  it('drops zero differences and uses the normal approximation then; null when all are zero', () => {
    // Non-zero: 1,2,3 (all +), V = 6, centre 3, σ² = 3·4·7/24 = 3.5; z = (3 − 0.5)/√3.5 = 1.336306
    // p = 2(1 − Φ(1.336306)) = 0.181449.
    const r = wilcoxonSignedRank([0, 1, 2, 3]);
    expect(r?.method).toBe('normal approximation');
    expect(r?.n).toBe(3);
    expect(r?.p).toBeCloseTo(0.181449, 5);
    expect(wilcoxonSignedRank([0, 0])).toBeNull();
  });
});

describe('Hodges–Lehmann', () => {
  it('two-sample shift = median of all x_i − y_j', () => {
    // 1,2,3 − 4,5,6 → −5,−4,−4,−3,−3,−3,−2,−2,−1 → median −3
    expect(hodgesLehmannShift([1, 2, 3], [4, 5, 6])).toBe(-3);
  });

  it('paired = median of Walsh averages', () => {
    // d = 1, 2, 10: (d_i + d_j)/2, i ≤ j → 1, 1.5, 5.5, 2, 6, 10 → sorted 1, 1.5, 2, 5.5, 6, 10 → (2 + 5.5)/2 = 3.75
    expect(hodgesLehmannPaired([1, 2, 10])).toBe(3.75);
    expect(hodgesLehmannPaired([5])).toBe(5);
  });

  it('the selection algorithm equals brute force on random samples with ties', () => {
    const medianOf = (values: number[]) => {
      const s = [...values].sort((a, b) => a - b);
      const h = (s.length - 1) / 2;
      const lo = Math.floor(h);
      return s[lo]! + (h - lo) * (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!);
    };
    const prng = createPrng(3);
    for (let t = 0; t < 200; t++) {
      const x = Array.from({ length: prng.int(1, 25) }, () => prng.int(0, 40) / 4);
      const y = Array.from({ length: prng.int(1, 25) }, () => prng.float() * 10);
      const diffs = x.flatMap((a) => y.map((b) => a - b));
      const walsh = x.flatMap((a, i) => x.slice(i).map((b) => (a + b) / 2));
      expect(hodgesLehmannShift(x, y)).toBe(medianOf(diffs));
      expect(hodgesLehmannPaired(x)).toBe(medianOf(walsh));
    }
  });
});
