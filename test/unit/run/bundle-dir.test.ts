/**
 * Bundle directories the user gets wrong: `--out` on procfs must be refused at once (Node's
 * recursive mkdirSync loops forever there), and `--resume` of a run killed before its plan was
 * written must say nothing was recorded and how to start again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareBundleDir, resumeRefusal } from '../../../harness/run/bundle-dir.ts';
import { sandbench } from '../../support/cli.ts';
import { tempDir } from '../../support/temp-dirs.ts';

describe('--out on a kernel pseudo-filesystem', () => {
  it('refuses /proc and /sys paths with the filesystem named, without hanging', () => {
    expect(() => prepareBundleDir('/proc/sandbench-x/deeper', { allowExisting: false })).toThrow(/--out \/proc\/sandbench-x\/deeper: \/proc is on procfs, a kernel pseudo-filesystem/);
    expect(() => prepareBundleDir('/sys/sandbench-x', { allowExisting: false })).toThrow(/\/sys is on sysfs/);
  });

  it('still creates a normal nested directory', () => {
    const root = tempDir('sandbench-out-');
    prepareBundleDir(join(root, 'a', 'b', 'c'), { allowExisting: false });
    expect(() => prepareBundleDir(join(root, 'a', 'b', 'c'), { allowExisting: true })).not.toThrow();
  });

  it('the CLI exits 2 naming the option (it used to hang forever)', async () => {
    // Before the fix this never returned; the test's own timeout is the hang detector.
    const root = tempDir('sandbench-proc-');
    const spec = join(root, 'spec.yaml');
    writeFileSync(spec, 'name: proc\nexperiment: shell-ready\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 1\ntimeout: 30s\n');
    const run = await sandbench(['run', spec, '--out', '/proc/sandbench-x']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--out \/proc\/sandbench-x: \/proc is on procfs/);
  }, 180_000);
});

describe('--resume of a run that never wrote its plan', () => {
  it('says nothing was recorded and gives the command to start again', () => {
    const root = tempDir('sandbench-resume-');
    const spec = join(root, 'my.yaml');
    writeFileSync(spec, 'name: x\n');
    const onlyCopy = join(root, 'b1');
    mkdirSync(onlyCopy);
    writeFileSync(join(onlyCopy, 'spec.yaml'), 'name: x\n');
    expect(resumeRefusal(onlyCopy)).toBe(`--resume ${onlyCopy}: nothing was recorded — the run stopped before its plan was written, so no trial ran. Start it again (with the same options): cp ${onlyCopy}/spec.yaml ./spec.yaml && rm -r ${onlyCopy} && sandbench run ./spec.yaml --out ${onlyCopy}`);
    const withResolved = join(root, 'b2');
    mkdirSync(withResolved);
    writeFileSync(join(withResolved, 'spec.yaml'), 'name: x\n');
    writeFileSync(join(withResolved, 'resolved-spec.json'), JSON.stringify({ spec_path: spec }));
    expect(resumeRefusal(withResolved)).toContain(`nothing was recorded`);
    expect(resumeRefusal(withResolved)).toContain(`rm -r ${withResolved} && sandbench run ${spec} --out ${withResolved}`);
    expect(resumeRefusal(join(root, 'absent'))).toMatch(/no such directory/);
    expect(resumeRefusal(root)).toMatch(/not a sandbench bundle/);
  });

  it('the CLI exits 2 with that message', async () => {
    const root = tempDir('sandbench-resume-cli-');
    writeFileSync(join(root, 'spec.yaml'), 'name: x\n');
    const run = await sandbench(['run', '--resume', root]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('nothing was recorded');
  }, 90_000);
});
