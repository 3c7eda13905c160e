#!/usr/bin/env node
// Entry point: the compiled CLI in dist/ when it is current (scripts/build-dist.mjs), else the
// TypeScript sources through tsx, so an edited checkout never runs a stale build.
// SANDBENCH_FROM_SOURCE=1 forces the sources.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceStamp } from './source-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function distIsCurrent() {
  if (process.env.SANDBENCH_FROM_SOURCE === '1') return false;
  try {
    const built = JSON.parse(readFileSync(join(root, 'dist', 'build-stamp.json'), 'utf8'));
    // An installed package (built by `npm pack`, no .git): npm stamps every extracted file with the
    // install time, so mtimes say nothing there, and nobody edits its sources in place.
    if (built.packaged === true && !existsSync(join(root, '.git'))) return true;
    const now = sourceStamp(root);
    return built.files === now.files && now.newestMs <= built.newestMs;
  } catch {
    return false;
  }
}

const fromDist = distIsCurrent();
// For tests and bug reports: which entry ran.
if (process.env.SANDBENCH_DEBUG_ENTRY === '1') process.stderr.write(`sandbench: entry: ${fromDist ? 'dist' : 'sources'}\n`);
if (fromDist) {
  const { main } = await import('../dist/sandbench.mjs');
  await main(process.argv);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../cli/main.ts');
  await main(process.argv);
}
