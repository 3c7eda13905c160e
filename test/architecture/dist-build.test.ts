/**
 * The compiled CLI (scripts/build-dist.mjs → dist/) must behave as the sources do: it runs
 * `--help` and a real `verify`, and bin/sandbench.mjs falls back to the sources when dist/ is stale.
 * Source modules find their data through PROJECT_ROOT, never `import.meta.url` (a bundled module
 * lives in dist/, so a path relative to its own file would point into dist/).
 */
import { cpSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { tsFiles } from './import-graph.ts';
import { readFileSync } from 'node:fs';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCE_FOLDERS = ['cli', 'harness', 'executors', 'services', 'experiments', 'reports'];

describe('the dist build', () => {
  const copy = mkdtempSync(join(tmpdir(), 'sandbench-dist-'));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('no source module resolves files relative to import.meta.url (only harness/state-dir.ts defines PROJECT_ROOT)', () => {
    const offenders = SOURCE_FOLDERS.flatMap((folder) => tsFiles(ROOT, folder))
      .filter((file) => file !== 'harness/state-dir.ts')
      .filter((file) => /new URL\([^)]*import\.meta\.url\)|fileURLToPath\(import\.meta\.url\)|dirname\(new URL\(import\.meta\.url/.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('builds, runs --help and analyze from dist/, and falls back to the sources once a source is newer', async () => {
    // A private copy of the checkout (node_modules linked), so building never races the suite's own CLI runs.
    for (const entry of ['bin', 'scripts', 'data', 'launcher', 'package.json', 'test', ...SOURCE_FOLDERS]) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
    await execa('ln', ['-s', join(ROOT, 'node_modules'), join(copy, 'node_modules')]);
    await execa('node', [join(copy, 'scripts', 'build-dist.mjs')]);
    const help = await execa('node', [join(copy, 'bin', 'sandbench.mjs'), '--help'], { env: { SANDBENCH_DEBUG_ENTRY: '1' } });
    expect(help.stdout).toContain('Usage: sandbench');
    expect(help.stderr).toContain('entry: dist');
    // analyze loads the kind registry, the statistics and the bundle module: most of the CLI's graph.
    const bundle = join(copy, 'test', 'fixtures', 'bundles', 'shell-ready');
    const analyzed = await execa('node', [join(copy, 'bin', 'sandbench.mjs'), 'analyze', bundle], { reject: false, env: { SANDBENCH_DEBUG_ENTRY: '1' } });
    expect(analyzed.exitCode, analyzed.stderr).toBe(0);
    expect(analyzed.stderr).toContain('entry: dist');
    expect(readFileSync(join(bundle, 'summary.csv'), 'utf8')).toBe(readFileSync(join(ROOT, 'test', 'fixtures', 'bundles', 'shell-ready', 'summary.csv'), 'utf8'));
    const future = new Date(Date.now() + 60_000);
    utimesSync(join(copy, 'harness', 'errors.ts'), future, future);
    const stale = await execa('node', [join(copy, 'bin', 'sandbench.mjs'), '--help'], { env: { SANDBENCH_DEBUG_ENTRY: '1' } });
    expect(stale.stdout).toContain('Usage: sandbench');
    expect(stale.stderr).toContain('entry: sources');
    // Under a realtime policy the source fallback would livelock (tsx's esbuild): a clear refusal instead.
    if ((await execa('chrt', ['-f', '10', 'true'], { reject: false })).exitCode === 0) {
      const refused = await execa('chrt', ['-f', '10', 'node', join(copy, 'bin', 'sandbench.mjs'), '--help'], { reject: false, timeout: 30_000 });
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('Fix: run `npm run build`');
    }
  }, 240_000);
});
