#!/usr/bin/env node
/**
 * Compiles the CLI to plain JavaScript in dist/ (esbuild, one chunk per lazily loaded command), so
 * `sandbench` does not pay tsx's TypeScript transform on every start. Run by `npm ci`/`npm install`
 * (the `prepare` script) and by scripts/setup.sh. bin/sandbench.mjs uses dist/ only while
 * dist/build-stamp.json matches the sources (same file count, no source newer than the build), and
 * falls back to the TypeScript sources through tsx otherwise — a stale build is never run.
 * Libraries stay external (resolved from node_modules at run time, as from the sources).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { sourceStamp } from '../bin/source-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist');
const stamp = sourceStamp(root);
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
await build({
  entryPoints: { sandbench: join(root, 'cli', 'main.ts') },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  outExtension: { '.js': '.mjs' },
  // Flat: every file one level below the root, like the sources' harness/state-dir.ts, so PROJECT_ROOT (new URL('..', import.meta.url)) still names the checkout.
  chunkNames: '[name]-[hash]',
  logLevel: 'warning',
});
// The commit `sandbench --version` prints where there is no .git (an installed package); null outside a checkout.
function buildCommit() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}
// `npm pack`/`npm publish` run this as the prepare script: that build is what an installed package
// runs, whatever the mtimes npm gives its files (bin/sandbench.mjs trusts it only outside a checkout).
const packaged = ['pack', 'publish'].includes(process.env.npm_command ?? '');
// Written last: an interrupted build leaves no stamp, so the sources are used.
writeFileSync(join(outdir, 'build-stamp.json'), `${JSON.stringify({ ...stamp, commit: buildCommit(), packaged })}\n`);
process.stderr.write(`build-dist: dist/sandbench.mjs from ${stamp.files} sources\n`);
