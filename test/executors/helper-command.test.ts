/**
 * The harness's helper commands (cp -a, rm -rf) go through the run's launcher when it is up and
 * through execa otherwise, with the same results and errors; the helpers' CPU meter reads what the
 * kernel charged a process; the baseline digest cache never hides a change.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runHelper } from '../../executors/launch/helper-command.ts';
import { meterHelperCpu, processCpu } from '../../executors/launch/helper-cpu.ts';
import { closeTimingSession, harnessHelperPids, timingSession } from '../../executors/launch/timing-session.ts';
import { copyEntries, copyWorkspace, diffInventories, diffWorkspaces, diffWorkspacesVia, inventory, removeTree, treeDigest } from '../../executors/workspace-diff.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-helper-'));
afterAll(async () => {
  await closeTimingSession();
  rmSync(dir, { recursive: true, force: true });
});

function makeTree(root: string): void {
  mkdirSync(join(root, 'src', 'deep'), { recursive: true });
  mkdirSync(join(root, '.git', 'objects'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.py'), 'print(1)\n');
  writeFileSync(join(root, 'src', 'deep', 'b.txt'), 'b\n');
  writeFileSync(join(root, 'run.sh'), '#!/bin/sh\n');
  chmodSync(join(root, 'run.sh'), 0o755);
  symlinkSync('src/a.py', join(root, 'link'));
  writeFileSync(join(root, '.git', 'objects', 'x'), 'git object\n');
}

describe('helper commands', () => {
  it('run through the launcher once the run has one, else through execa, with the same output and errors', async () => {
    await closeTimingSession();
    const node = await runHelper(['sh', '-c', 'echo out; echo err >&2']);
    expect(node).toEqual({ stdout: 'out', stderr: 'err', path: 'node' });
    const session = await timingSession();
    expect(session.path).toBe('launcher');
    const viaLauncher = await runHelper(['sh', '-c', 'echo out; echo err >&2']);
    expect(viaLauncher.path).toBe('launcher');
    expect(viaLauncher.stdout.trim()).toBe('out');
    expect(viaLauncher.stderr.trim()).toBe('err');
    await expect(runHelper(['sh', '-c', 'echo broken >&2; exit 3'])).rejects.toThrow(/sh -c .* exited 3: broken/);
    await expect(runHelper(['no-such-helper-binary'])).rejects.toThrow(/no-such-helper-binary/);
    await expect(runHelper(['sleep', '5'], { timeoutMs: 200 })).rejects.toThrow(/timed out after 200 ms/);
  });

  it('copy (all entries or some), diff and remove workspaces through the launcher: modes, links and bytes kept', async () => {
    await timingSession();
    const base = join(dir, 'base');
    makeTree(base);
    chmodSync(base, 0o751);
    const copy = join(dir, 'copy');
    await copyWorkspace(base, copy);
    expect(treeDigest(copy)).toBe(treeDigest(base));
    // The copy's mark (a chmod of its root to its own mode, for the ctime stamp) leaves the root as cp made it.
    expect([statSync(copy).mode & 0o7777, statSync(copy).mtimeMs]).toEqual([0o751, statSync(base).mtimeMs]);
    expect(statSync(join(copy, 'run.sh')).mode & 0o777).toBe(0o755);
    const some = join(dir, 'some');
    await copyEntries(base, ['src', 'link', 'run.sh'], some);
    expect(existsSync(join(some, '.git'))).toBe(false);
    expect(readFileSync(join(some, 'link'), 'utf8')).toBe('print(1)\n');
    await expect(copyEntries(base, ['../etc'], some)).rejects.toThrow(/not an entry name/);
    writeFileSync(join(copy, 'src', 'a.py'), 'print(2)\n');
    writeFileSync(join(copy, 'new.txt'), 'n\n');
    rmSync(join(copy, 'src', 'deep', 'b.txt'));
    expect(await diffWorkspaces(base, copy)).toEqual(['new.txt', 'src/a.py', 'src/deep/b.txt (deleted)']);
    await removeTree(copy);
    expect(existsSync(copy)).toBe(false);
    await removeTree(join(dir, 'never-existed'));
    await expect(removeTree('/')).rejects.toThrow(/refusing/);
  });

  it('a baseline whose digests are remembered still shows a same-size rewrite with its mtime restored (ctime moves)', async () => {
    const base = join(dir, 'cached-base');
    makeTree(base);
    // Older than the racy window, so the digests are remembered.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const copy = join(dir, 'cached-copy');
    await copyWorkspace(base, copy);
    expect(await diffWorkspaces(base, copy)).toEqual([]);
    expect(await diffWorkspaces(base, copy)).toEqual([]);
    const file = join(base, 'src', 'a.py');
    const before = statSync(file);
    writeFileSync(file, 'print(9)\n');
    utimesSync(file, before.atime, before.mtime);
    expect(await diffWorkspaces(base, copy)).toEqual(['src/a.py']);
  }, 15_000);

  it('the helper CPU meter reads utime + stime as the kernel charges them (checked against process.cpuUsage)', async () => {
    const self = processCpu(process.pid)!;
    const usage = process.cpuUsage();
    const meter = meterHelperCpu(() => [process.pid]);
    const end = performance.now() + 300;
    let spin = 0;
    while (performance.now() < end) spin += Math.sqrt(spin + 1);
    const read = meter.read();
    const used = process.cpuUsage(usage);
    const burnt = (used.user + used.system) / 1000;
    expect(self.userMs).toBeGreaterThan(0);
    // Two reads at 10 ms ticks each side, plus other threads' work between the two clocks' reads.
    expect(Math.abs(read.userMs + read.systemMs - burnt)).toBeLessThan(40);
    expect(read.pids).toEqual([process.pid]);
    expect(processCpu(2 ** 22 + 1)).toBeNull();
    // In a run with the launcher, the meter follows the launcher's own pid.
    await timingSession();
    expect(harnessHelperPids()).toHaveLength(1);
    expect(meterHelperCpu().read().pids).toEqual(harnessHelperPids());
  });
});

describe('diff after a copy (the copy walked, only entries outside cp\'s ctime window compared)', () => {
  it('reports exactly what the full in-process walk reports, for every kind of change', async () => {
    await timingSession();
    const base = join(dir, 'marked-base');
    makeTree(base);
    mkdirSync(join(base, 'gone-dir', 'sub'), { recursive: true });
    writeFileSync(join(base, 'gone-dir', 'sub', 'f'), 'f\n');
    writeFileSync(join(base, 'same-size.txt'), 'aaaa\n');
    writeFileSync(join(base, 'becomes-dir'), 'x\n');
    mkdirSync(join(base, 'becomes-file', 'inner'), { recursive: true });
    writeFileSync(join(base, 'becomes-file', 'inner', 'g'), 'g\n');
    mkdirSync(join(base, 'keep-dir', 'nested'), { recursive: true });
    writeFileSync(join(base, 'keep-dir', 'nested', 'drop.txt'), 'd\n');
    writeFileSync(join(base, 'keep-dir', 'nested', 'stay.txt'), 's\n');
    writeFileSync(join(base, 'keep-dir', 'resized.txt'), 'short\n');
    symlinkSync('run.sh', join(base, 'retarget'));
    const copy = join(dir, 'marked-copy');
    await copyWorkspace(base, copy);
    expect(await diffWorkspacesVia(base, join(dir, 'not-a-copy')).catch(() => null)).toBeNull(); // no mark, no such tree: the walk throws
    // Unchanged copy: nothing, by the fast path.
    await copyWorkspace(base, join(dir, 'marked-clean'));
    expect(await diffWorkspacesVia(base, join(dir, 'marked-clean'))).toEqual({ changed: [], via: 'marked' });
    // Every kind of change, including a same-size rewrite whose mtime is put back (only ctime shows it).
    const sameSize = join(copy, 'same-size.txt');
    const stamp = statSync(sameSize);
    writeFileSync(sameSize, 'bbbb\n');
    utimesSync(sameSize, stamp.atime, stamp.mtime);
    writeFileSync(join(copy, 'src', 'a.py'), 'print(3)\n');
    chmodSync(join(copy, 'src', 'deep', 'b.txt'), 0o600);
    mkdirSync(join(copy, 'new-dir', 'inner'), { recursive: true });
    writeFileSync(join(copy, 'new-dir', 'inner', 'n.txt'), 'n\n');
    rmSync(join(copy, 'gone-dir'), { recursive: true });
    rmSync(join(copy, 'becomes-dir'));
    mkdirSync(join(copy, 'becomes-dir'));
    writeFileSync(join(copy, 'becomes-dir', 'inside.txt'), 'i\n');
    rmSync(join(copy, 'retarget'));
    symlinkSync('src/a.py', join(copy, 'retarget'));
    writeFileSync(join(copy, 'renamed-over.tmp'), 'print(1)\n');
    // Deeper: a directory turned into a file, a deletion two levels down, a resize, a directory's mode.
    rmSync(join(copy, 'becomes-file'), { recursive: true });
    writeFileSync(join(copy, 'becomes-file'), 'now a file\n');
    rmSync(join(copy, 'keep-dir', 'nested', 'drop.txt'));
    writeFileSync(join(copy, 'keep-dir', 'resized.txt'), 'much longer now\n');
    chmodSync(join(copy, 'keep-dir'), 0o700);
    // (A file replaced by a directory is not listed by the walk either: both ways agree, as checked below.)
    const walked = diffInventories(inventory(base), inventory(copy));
    const fast = await diffWorkspacesVia(base, copy);
    expect(fast.via).toBe('marked');
    expect(fast.changed).toEqual(walked);
    expect(walked).toEqual(expect.arrayContaining(['same-size.txt', 'src/a.py', 'src/deep/b.txt', 'new-dir', 'new-dir/inner/n.txt', 'gone-dir (deleted)', 'gone-dir/sub/f (deleted)', 'retarget', 'renamed-over.tmp']));
    expect(walked).toEqual(expect.arrayContaining(['becomes-dir/inside.txt', 'becomes-file', 'becomes-file/inner (deleted)', 'becomes-file/inner/g (deleted)', 'keep-dir/nested/drop.txt (deleted)', 'keep-dir/resized.txt']));
    expect(walked).not.toContain('keep-dir/nested/stay.txt');
    // The mark is used once: a second diff walks (and agrees).
    expect(await diffWorkspacesVia(base, copy)).toEqual({ changed: walked, via: 'walk' });
  });
});
