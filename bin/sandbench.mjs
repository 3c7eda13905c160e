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

/**
 * Whether this process runs under a realtime policy (SCHED_FIFO or SCHED_RR, e.g. under `chrt -f`,
 * as the CI-gate recipe runs a measurement). Field 41 of /proc/self/stat, counted after the command
 * name's closing parenthesis (the name may hold spaces).
 */
function realtimePolicy() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const policy = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
    return policy === 1 || policy === 2;
  } catch {
    return false;
  }
}

const fromDist = distIsCurrent();
// The source fallback compiles through tsx's esbuild service, a Go process: at a realtime priority
// its spinning threads and node's starve each other and the command never starts (measured: 95% of
// a CPU each, no progress, for 10 minutes). A clear refusal beats that livelock.
if (!fromDist && realtimePolicy()) {
  process.stderr.write(
    'sandbench: the compiled build in dist/ is older than the sources, and the sources cannot run under a realtime policy (chrt -f/-r): tsx compiles them with esbuild, which livelocks at realtime priority. Fix: run `npm run build` in the checkout, then run this again.\n',
  );
  process.exit(2);
}
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
