import { describe, expect, it } from 'vitest';
import { bisectCapacity } from '../../experiments/density/capacity-search.ts';

const cellWithCapacity = (capacity: number) => async (n: number) => ({ concurrency: n, passed: n <= capacity, batches_run: 1, batches_passed: n <= capacity ? 1 : 0 });

describe('capacity bisection', () => {
  it('brackets the largest passing N with few probes', async () => {
    const bracket = await bisectCapacity(1, 64, cellWithCapacity(37));
    expect([bracket.largest_passing, bracket.smallest_failing]).toEqual([37, 38]);
    expect(bracket.probes.length).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(64)));
  });
  it('reports open brackets at both ends', async () => {
    expect(await bisectCapacity(2, 32, cellWithCapacity(100))).toMatchObject({ largest_passing: 32, smallest_failing: null });
    expect(await bisectCapacity(2, 32, cellWithCapacity(1))).toMatchObject({ largest_passing: null, smallest_failing: 2 });
  });
  it('rejects a bad range', async () => {
    await expect(bisectCapacity(8, 4, cellWithCapacity(5))).rejects.toThrow(/min <= max/);
  });
});
