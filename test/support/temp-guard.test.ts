/**
 * The suite's temp guard both ways: a vitest run whose tests pass but leave a sandbench dir in
 * os.tmpdir() fails (exit 1) naming it, while dirs made with tempDir() are gone even when their test
 * fails; a clean run passes. Plus the pieces: the private TMPDIR, which names count as ours, and no removal through a mount.
 */
import { existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { removeTempDir } from './remove-dir.ts';
import { leftoverTempMessage, openSuiteTempDir } from './temp-guard.ts';
import { tempDir } from './temp-dirs.ts';

async function fixtureRun(env: { FAIL: string; LEAK: string }) {
  const result = await execa(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/fixtures/temp-guard/vitest.config.ts'], { cwd: PROJECT_ROOT, env: { ...env, NO_COLOR: '1', FORCE_COLOR: '0' }, reject: false, all: true });
  const made = [...result.all.matchAll(/^made (\S+)$/gm)].map((match) => match[1]!);
  const suiteTmp = /^suite TMPDIR (\S+)$/m.exec(result.all)?.[1];
  return { code: result.exitCode, output: result.all, made, suiteTmp, workerTmp: /^worker TMPDIR (\S+)$/m.exec(result.all)?.[1] };
}

describe('suite temp guard (a vitest run of its own)', () => {
  it('tempDir() dirs go even when their test fails: the run fails for the test alone', async () => {
    const run = await fixtureRun({ FAIL: '1', LEAK: '0' });
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('failing on purpose');
    // Workers inherit the private TMPDIR global setup made.
    expect(run.workerTmp, run.output).toBe(run.suiteTmp);
    expect(run.made[0], run.output).toMatch(/\/sandbench-cleaned-\w{6}$/);
    expect(run.output).not.toContain('temp entr');
    expect(existsSync(run.suiteTmp!), 'the private TMPDIR is removed').toBe(false);
  }, 120_000);

  it('fails a run whose tests pass but leave a sandbench dir, naming it', async () => {
    const run = await fixtureRun({ FAIL: '0', LEAK: '1' });
    expect(run.output).toMatch(/Tests\W+1 passed/);
    expect(run.code, run.output).toBe(1);
    const [cleaned, leaked] = run.made;
    expect(leaked, run.output).toMatch(/\/sandbench-leaked-\w{6}$/);
    expect(run.output).toContain('the test suite left 1 temp entry in its TMPDIR');
    expect(run.output).toContain(`  ${leaked}`);
    expect(run.output).not.toContain(`  ${cleaned}`);
    expect(existsSync(run.suiteTmp!)).toBe(false);
  }, 120_000);

  it('passes a run that leaves nothing', async () => {
    const run = await fixtureRun({ FAIL: '0', LEAK: '0' });
    expect(run.code, run.output).toBe(0);
    expect(run.output).not.toContain('temp entr');
    expect(existsSync(run.suiteTmp!)).toBe(false);
  }, 120_000);
});

describe('suite temp dir', () => {
  it('points TMPDIR at a fresh dir, judges only sandbench/sb names, restores TMPDIR and removes the dir', () => {
    const env: NodeJS.ProcessEnv = { TMPDIR: '/somewhere-else' };
    const suite = openSuiteTempDir(env);
    expect(env.TMPDIR).toBe(suite.dir);
    expect(suite.dir).toMatch(/\/sb-suite-\w{6}$/);
    expect(statSync(suite.dir).mode & 0o7777).toBe(0o1777);
    mkdirSync(join(suite.dir, 'sandbench-x-abc123'));
    mkdirSync(join(suite.dir, 'sb-journal-abc123'));
    mkdirSync(join(suite.dir, 'tsx-0'));
    writeFileSync(join(suite.dir, 'pvisor-agent-1.sock'), '');
    expect(suite.leftovers()).toEqual(['sandbench-x-abc123', 'sb-journal-abc123']);
    expect(suite.close()).toEqual(['sandbench-x-abc123', 'sb-journal-abc123']);
    expect(env.TMPDIR).toBe('/somewhere-else');
    expect(existsSync(suite.dir)).toBe(false);
    const unset: NodeJS.ProcessEnv = {};
    const clean = openSuiteTempDir(unset);
    expect(clean.close()).toEqual([]);
    expect('TMPDIR' in unset).toBe(false);
  });

  it('names every leftover path and the fix', () => {
    expect(leftoverTempMessage('/tmp/sb-suite-a', ['sandbench-x-1', 'sb-y-2'])).toBe(
      'the test suite left 2 temp entries in its TMPDIR /tmp/sb-suite-a (now removed):\n  /tmp/sb-suite-a/sandbench-x-1\n  /tmp/sb-suite-a/sb-y-2\n' +
        'make them with tempDir() from test/support/temp-dirs.ts (removed when the file ends, pass or fail), or remove them in a finally',
    );
  });

  it.runIf(process.getuid?.() === 0)('never deletes through a mount below the dir', async () => {
    const dir = tempDir('sandbench-mounted-');
    const point = mkdtempSync(join(dir, 'mnt-'));
    await execa('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'sandbench-test', point]);
    try {
      writeFileSync(join(point, 'kept'), 'x');
      expect(() => removeTempDir(dir)).toThrow(`temp dir ${dir} not removed: still mounted below it: ${point}`);
      expect(existsSync(join(point, 'kept'))).toBe(true);
    } finally {
      await execa('umount', [point]);
    }
    removeTempDir(dir);
    expect(existsSync(dir)).toBe(false);
  });
});
