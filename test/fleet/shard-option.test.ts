/** `run --shard` bad input through the real CLI: exit 2, the message names --shard and the fix. */
import { describe, expect, it } from 'vitest';
import { sandbench } from '../support/cli.ts';

describe('sandbench run --shard: bad input', () => {
  it.each([
    ['3/3', /--shard 3\/3: the shard index must be in 0\.\.2/],
    ['1', /--shard 1: expected i\/N/],
    ['0/0', /--shard 0\/0: the shard count N must be ≥ 1/],
  ])('--shard %s exits 2', async (value, message) => {
    const result = await sandbench(['run', 'test/fleet/fleet-small.yaml', '--shard', value, '--out', '/nonexistent/never-created']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  }, 300_000); // a CLI start-up, but the shared machine runs at load 20 at times

  it('refuses --shard with --resume (the bundle already holds its shard)', async () => {
    const result = await sandbench(['run', '--resume', '/nonexistent/bundle', '--shard', '0/3']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--shard: not with --resume/);
  }, 300_000);
});
