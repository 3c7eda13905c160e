/**
 * Seeded randomness for every random choice the harness makes (schedules, bootstrap resamples).
 * pure-rand's xoroshiro128+ is a well-tested, fast, seedable generator; a named algorithm plus a
 * recorded seed makes every schedule and every interval reproducible byte for byte.
 */
import { createHash } from 'node:crypto';
import { xoroshiro128plus, unsafeUniformIntDistribution, type RandomGenerator } from 'pure-rand';

export const PRNG_NAME = 'pure-rand xoroshiro128plus';

export interface Prng {
  /** Uniform integer in [from, to], both inclusive. */
  int(from: number, to: number): number;
  /** Uniform float in [0, 1) with 32 bits of resolution. */
  float(): number;
}

export function createPrng(seed: number): Prng {
  const generator: RandomGenerator = xoroshiro128plus(seed | 0);
  return {
    int: (from, to) => unsafeUniformIntDistribution(from, to, generator),
    float: () => unsafeUniformIntDistribution(0, 0xffffffff, generator) / 4294967296,
  };
}

/** A 31-bit seed derived from a stable string id (e.g. `run_id:metric:arm`), so seeds never collide by accident. */
export function seedFromString(id: string): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) & 0x7fffffff;
}

/** Fisher–Yates shuffle of a copy (Knuth, TAOCP vol. 2, Algorithm P): every order equally likely. */
export function shuffled<T>(items: readonly T[], prng: Prng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = prng.int(0, i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
