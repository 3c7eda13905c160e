/**
 * Uniform resampling indices in [0, n) for the bootstrap, from the harness PRNG (PRNG_NAME).
 *
 * Two exact speed-ups, both invisible in the result's distribution:
 * - one uniform integer in [0, n^k) is exactly k independent uniform digits in base n (n^k ≤ 2^32),
 *   so 60 blocks cost one draw per 5 indices;
 * - the generator is driven directly with the same rejection rule pure-rand's
 *   unsafeUniformIntDistribution applies (reject the top 2^32 mod range values, then take the
 *   remainder), because the distribution wrapper costs ~3× the draw itself. The stream is therefore
 *   bit-identical to `createPrng(seed).int(0, n^k − 1)` (tested).
 */
import { xoroshiro128plus, type RandomGenerator } from 'pure-rand';

const TWO_POW_32 = 4294967296;

/** The generator of `createPrng(seed)` (harness/plan/prng.ts), for samplers that share one stream. */
export function bootstrapGenerator(seed: number): RandomGenerator {
  return xoroshiro128plus(seed | 0);
}

export class IndexSampler {
  private readonly digits: number;
  private readonly range: number;
  /** Values ≥ this are rejected so every residue is equally likely (no modulo bias). */
  private readonly maxAllowed: number;

  constructor(
    private readonly generator: RandomGenerator,
    private readonly n: number,
  ) {
    if (!Number.isInteger(n) || n < 1) throw new Error(`IndexSampler: n must be a positive integer, got ${n}`);
    let digits = 1;
    let range = n;
    while (n > 1 && range * n <= TWO_POW_32) {
      range *= n;
      digits++;
    }
    this.digits = digits;
    this.range = range;
    // pure-rand: MaxAllowed = rangeSize > 2 ? ⌊2^32 / rangeSize⌋·rangeSize : 2^32
    this.maxAllowed = range > 2 ? Math.floor(TWO_POW_32 / range) * range : TWO_POW_32;
  }

  /** Uniform integer in [0, range): identical to pure-rand's unsafeUniformIntDistribution(0, range − 1). */
  private next(): number {
    let value = this.generator.unsafeNext() + 0x80000000;
    while (value >= this.maxAllowed) value = this.generator.unsafeNext() + 0x80000000;
    return value % this.range;
  }

  /** Fills out[0..count) with independent uniform indices in [0, n). */
  fill(out: Int32Array, count = out.length): void {
    const { n, digits } = this;
    if (n === 1) {
      out.fill(0, 0, count);
      return;
    }
    let i = 0;
    while (i < count) {
      let value = this.next();
      const end = Math.min(i + digits, count);
      for (; i < end; i++) {
        const next = Math.floor(value / n);
        out[i] = value - next * n;
        value = next;
      }
    }
  }

  /** Indices per generator draw (before rejections), for tests and docs. */
  get indicesPerDraw(): number {
    return this.digits;
  }
}
