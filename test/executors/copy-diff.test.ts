/**
 * The copy-side diff trusts what still has the ctime cp gave it and compares the rest. The window's
 * ends here are stamped well before and after the copy (a chmod of the copy's root, as
 * copyWorkspace does), so the copied entries' ctimes are strictly inside it and the trust is
 * exercised, not only the comparison.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffSinceCopy, type CopyWindow } from '../../executors/copy-diff.ts';
import { diffInventories, inventory } from '../../executors/workspace-diff.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-copy-diff-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Longer than a filesystem timestamp tick (a jiffy: ≤ 10 ms), so later stamps are strictly later. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 30));

function stamp(path: string): bigint {
  chmodSync(path, lstatSync(path).mode & 0o7777);
  return lstatSync(path, { bigint: true }).ctimeNs;
}

async function markedCopy(base: string, copy: string): Promise<CopyWindow> {
  mkdirSync(copy);
  const startNs = stamp(copy);
  await tick();
  execFileSync('cp', ['-a', '--', `${base}/.`, copy]);
  await tick();
  const endNs = stamp(copy);
  await tick();
  return { startNs, endNs };
}

describe('diffSinceCopy', () => {
  it('compares only what moved since the mark: a baseline edit under an unmoved copy entry is not the trial\'s change', async () => {
    const base = join(dir, 'base');
    mkdirSync(join(base, 'pkg'), { recursive: true });
    writeFileSync(join(base, 'pkg', 'untouched.py'), 'a = 1\n');
    writeFileSync(join(base, 'pkg', 'edited.py'), 'b = 1\n');
    const copy = join(dir, 'copy');
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
    const mark = await markedCopy(base, copy);
    rmSync(join(copy, 'a', 'b', 'x'));
    expect(diffSinceCopy(base, copy, mark)).toEqual(['a/b/x (deleted)']);
    expect(diffSinceCopy(base, copy, mark)).toEqual(diffInventories(inventory(base), inventory(copy)));
  });

  it('compares a tree moved in from outside the copy entry by entry: its old ctimes are not cp\'s', async () => {
    const outside = join(dir, 'made-before');
    mkdirSync(join(outside, 'inner'), { recursive: true });
    writeFileSync(join(outside, 'inner', 'old.txt'), 'old\n');
    await tick();
    const base = join(dir, 'base3');
    mkdirSync(join(base, 'src'), { recursive: true });
    writeFileSync(join(base, 'src', 'keep.py'), 'k\n');
    const copy = join(dir, 'copy3');
    const mark = await markedCopy(base, copy);
    renameSync(outside, join(copy, 'src', 'vendor'));
    const expected = diffInventories(inventory(base), inventory(copy));
    expect(expected).toEqual(['src/vendor', 'src/vendor/inner', 'src/vendor/inner/old.txt']);
    expect(diffSinceCopy(base, copy, mark)).toEqual(expected);
  });
});
