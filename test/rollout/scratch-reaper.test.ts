import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScratchReaper } from '../../experiments/rollout/scratch-reaper.ts';
import { tempDir } from '../support/temp-dirs.ts';

/** An attempt's scratch as the rollout loop leaves it: nested dirs with files. */
function scratch(root: string, name: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'agent', 'deep'), { recursive: true });
  mkdirSync(join(dir, 'scoring-workspace'), { recursive: true });
  writeFileSync(join(dir, 'agent', 'deep', 'file.txt'), name);
  writeFileSync(join(dir, 'scoring-workspace', 'x.py'), name);
  return dir;
}

describe('ScratchReaper', () => {
  it('frees each path at once and leaves nothing after close, across full and partial batches', async () => {
    const root = tempDir('sandbench-reaper-');
    const reaper = new ScratchReaper(join(root, 'trash'), 3);
    const dirs = Array.from({ length: 7 }, (_, i) => scratch(root, `a${i}`));
    // concurrent discards, as C workers finish together
    await Promise.all(dirs.map((dir) => reaper.discard(dir)));
    for (const dir of dirs) expect(existsSync(dir)).toBe(false);
    // a retry of the same attempt reuses its path; an already-gone dir is not an error
    scratch(root, 'a0');
    await reaper.discard(join(root, 'a0'));
    await reaper.discard(join(root, 'never-made'));
    expect(existsSync(join(root, 'a0'))).toBe(false);
    expect(await reaper.close()).toEqual([]);
    expect(readdirSync(root)).toEqual([]);
  });
});
