import { describe, expect, it } from 'vitest';
import { bootstrapGenerator, IndexSampler, splitmix64 } from '../../../harness/stats/index-sampler.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

describe('IndexSampler', () => {
  it('packs ⌊log_n 2^32⌋ indices per draw: 5 for 60 blocks, 2 for 5,000', () => {
    expect(new IndexSampler(bootstrapGenerator(1), 60).indicesPerDraw).toBe(5); // 60^5 = 777,600,000 ≤ 2^32 < 60^6
    expect(new IndexSampler(bootstrapGenerator(1), 5000).indicesPerDraw).toBe(2);
    expect(new IndexSampler(bootstrapGenerator(1), 65536).indicesPerDraw).toBe(2); // 65536² = 2^32 exactly
  });

  it('is the createPrng stream: the base-n digits of createPrng(splitmix64(seed)).int(0, n^k − 1)', () => {
    for (const n of [2, 3, 60, 2500, 70000]) {
      const sampler = new IndexSampler(bootstrapGenerator(42), n);
      const k = sampler.indicesPerDraw;
      const out = new Int32Array(10 * k);
      sampler.fill(out);
      const prng = createPrng(splitmix64(42));
      const expected: number[] = [];
      for (let d = 0; d < 10; d++) {
        let value = prng.int(0, n ** k - 1);
        for (let j = 0; j < k; j++) {
          expected.push(value % n);
          value = Math.floor(value / n);
        }
      }
      expect(Array.from(out), `n=${n}`).toEqual(expected);
    }
  });

  it('scrambles the seed with splitmix64 (reference value of the published algorithm), so the first draw is no longer ~seed', () => {
    // splitmix64 with state 0: first output 0xe220a8397b1dcdaf (Vigna's reference implementation).
    expect(splitmix64(0) >>> 0).toBe(0xe220a839);
    const firsts = [1, 2, 3, 4].map((seed) => bootstrapGenerator(seed).unsafeNext());
    const unscrambled = [1, 2, 3, 4].map((seed) => createPrng(seed).int(-0x80000000, 0x7fffffff));
    // Unscrambled, consecutive seeds give consecutive first outputs (a linear function of the seed).
    expect(unscrambled[1]! - unscrambled[0]!).toBe(unscrambled[2]! - unscrambled[1]!);
    expect(firsts[1]! - firsts[0]!).not.toBe(firsts[2]! - firsts[1]!);
  });

  it('is uniform: 600,000 indices over 60 blocks land within 5 standard errors of 10,000 each', () => {
    const sampler = new IndexSampler(bootstrapGenerator(7), 60);
    const out = new Int32Array(600_000);
    sampler.fill(out);
    const counts = new Array<number>(60).fill(0);
    for (const i of out) counts[i]!++;
    const se = Math.sqrt(600_000 * (1 / 60) * (59 / 60)); // binomial standard error ≈ 99
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(5 * se);
  });
});
