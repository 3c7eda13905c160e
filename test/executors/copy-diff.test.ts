/**
 * The copy-side diff trusts what has not moved since the copy's mark and compares what has. The
 * mark here is taken well after the copy (a chmod of the copy's root, as copyWorkspace does), so
 * the copied entries' ctimes are before it and the trust is exercised, not only the comparison.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffSinceCopy } from '../../executors/copy-diff.ts';
import { diffInventories, inventory } from '../../executors/workspace-diff.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-copy-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Longer than a filesystem timestamp tick (a jiffy: ≤ 10 ms), so later stamps are strictly later. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 30));

async function markedCopy(base: string, copy: string): Promise<bigint> {
  execFileSync('cp', ['-a', '--', `${base}/.`, copy]);
  await tick();
  chmodSync(copy, lstatSync(copy).mode & 0o7777);
  const mark = lstatSync(copy, { bigint: true }).ctimeNs;
  await tick();
  return mark;
}

describe('diffSinceCopy', () => {
  it('compares only what moved since the mark: a baseline edit under an unmoved copy entry is not the trial\'s change', async () => {
    const base = join(dir, 'base');
    mkdirSync(join(base, 'pkg'), { recursive: true });
    writeFileSync(join(base, 'pkg', 'untouched.py'), 'a = 1\n');
    writeFileSync(join(base, 'pkg', 'edited.py'), 'b = 1\n');
    const copy = join(dir, 'copy');
    mkdirSync(copy);
    const mark = await markedCopy(base, copy);
    writeFileSync(join(copy, 'pkg', 'edited.py'), 'b = 2\n');
    writeFileSync(join(copy, 'pkg', 'added.py'), 'c = 1\n');
    // The baseline changes under the copy's unmoved file: the full walk sees a difference, the copy-side diff does not.
    writeFileSync(join(base, 'pkg', 'untouched.py'), 'a = 9\n');
    expect(diffInventories(inventory(base), inventory(copy))).toEqual(['pkg/added.py', 'pkg/edited.py', 'pkg/untouched.py']);
    expect(diffSinceCopy(base, copy, mark)).toEqual(['pkg/added.py', 'pkg/edited.py']);
  });

  it('finds a deletion in a directory the trial emptied and one below an unmoved directory', async () => {
    const base = join(dir, 'base2');
    mkdirSync(join(base, 'a', 'b'), { recursive: true });
    writeFileSync(join(base, 'a', 'b', 'x'), 'x\n');
    writeFileSync(join(base, 'a', 'y'), 'y\n');
    const copy = join(dir, 'copy2');
    mkdirSync(copy);
    const mark = await markedCopy(base, copy);
    rmSync(join(copy, 'a', 'b', 'x'));
    expect(diffSinceCopy(base, copy, mark)).toEqual(['a/b/x (deleted)']);
    expect(diffSinceCopy(base, copy, mark)).toEqual(diffInventories(inventory(base), inventory(copy)));
  });
});
