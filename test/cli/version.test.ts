/** Issue 35 (1): `sandbench --version`/`-V` prints the package version and the commit, also outside a checkout. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readVersionInfo, versionLine } from '../../cli/version.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const packageVersion = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('sandbench --version', () => {
  it('-V and --version print the version and this checkout\'s commit, exit 0', async () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).trim();
    for (const flag of ['-V', '--version']) {
      const cli = await sandbench([flag]);
      expect(cli.code, cli.stderr).toBe(0);
      expect(cli.stdout).toMatch(new RegExp(`^sandbench ${packageVersion.replace(/\./g, '\\.')} \\(commit ${head}(, uncommitted changes)?\\)$`));
    }
  });

  it('outside a checkout: the commit stamped into dist/ at build time, else "commit unknown"', () => {
    const installed = tempDir('sandbench-version-');
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'sandbench', version: '9.8.7' }));
    expect(versionLine(readVersionInfo(installed))).toBe('sandbench 9.8.7 (commit unknown)');
    mkdirSync(join(installed, 'dist'));
    writeFileSync(join(installed, 'dist', 'build-stamp.json'), JSON.stringify({ files: 1, newestMs: 1, commit: 'abc1234def' }));
    expect(versionLine(readVersionInfo(installed))).toBe('sandbench 9.8.7 (commit abc1234def)');
  });

  it('a folder with neither package.json nor git still gives a line', () => {
    expect(versionLine(readVersionInfo(tempDir('sandbench-version-empty-')))).toBe('sandbench unknown (commit unknown)');
  });
});
