import { describe, expect, it } from 'vitest';
import { bootstrapGenerator, IndexSampler } from '../../../harness/stats/index-sampler.ts';
import { createPrng } from '../../../harness/plan/prng.ts';

describe('IndexSampler', () => {
  it('packs ⌊log_n 2^32⌋ indices per draw: 5 for 60 blocks, 2 for 5,000', () => {
    expect(new IndexSampler(bootstrapGenerator(1), 60).indicesPerDraw).toBe(5); // 60^5 = 777,600,000 ≤ 2^32 < 60^6
    expect(new IndexSampler(bootstrapGenerator(1), 5000).indicesPerDraw).toBe(2);
    expect(new IndexSampler(bootstrapGenerator(1), 65536).indicesPerDraw).toBe(2); // 65536² = 2^32 exactly
  });

  it('is the createPrng stream: the base-n digits of createPrng(seed).int(0, n^k − 1)', () => {
    for (const n of [2, 3, 60, 2500, 70000]) {
      const sampler = new IndexSampler(bootstrapGenerator(42), n);
      const k = sampler.indicesPerDraw;
      const out = new Int32Array(10 * k);
      sampler.fill(out);
      const prng = createPrng(42);
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
