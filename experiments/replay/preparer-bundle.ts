/**
 * Compiles the replay preparer (cli/replay-preparer-entry.ts, a process entry, and what it imports) to one plain-JS ESM file with
 * esbuild, once per run and outside timing. Each attempt is timed launch to exit, and loading the
 * TypeScript through tsx costs far more than the preparation itself (measured figures in
 * docs/canonical-history.md), so the timed subject is the compiled file; the `tsx-lean` and `cli`
 * entries stay selectable in the spec to measure that cost. `snapshot` goes one step further: the
 * bundle is turned into a V8 startup snapshot (node --build-snapshot), so a launch skips compiling
 * the code and constructing the schemas.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

const ENTRY = join(PROJECT_ROOT, 'cli', 'replay-preparer-entry.ts');
const SNAPSHOT_ENTRY = join(PROJECT_ROOT, 'cli', 'replay-preparer-snapshot-entry.ts');

export interface PreparerBundle {
  kind: 'bundle' | 'snapshot';
  /** The ESM bundle (kind bundle) or the snapshot blob (kind snapshot). */
  path: string;
  sha256: string;
  /** sha256 over the sorted (path, sha256) of every bundled source file. */
  inputs_sha256: string;
  esbuild_version: string;
}

const COMMON: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  metafile: true,
  // smaller source = less to compile at every launch (≈45% fewer bytes, measurably faster start)
  minify: true,
  logLevel: 'silent',
};

async function digestInputs(inputs: Record<string, unknown>): Promise<string> {
  const hash = createHash('sha256');
  for (const input of Object.keys(inputs).sort()) hash.update(`${input}\0${createHash('sha256').update(await readFile(input)).digest('hex')}\n`);
  return hash.digest('hex');
}

const sha256File = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

export async function buildPreparerBundle(outDir: string): Promise<PreparerBundle> {
  const path = join(outDir, 'sandbench-replay.mjs');
  const result = await build({
    ...COMMON,
    entryPoints: [ENTRY],
    format: 'esm',
    outfile: path,
    // commander is CommonJS; give the ESM bundle a require for its `require('node:events')`.
    banner: { js: "import { createRequire as __sandbenchRequire } from 'node:module'; const require = __sandbenchRequire(import.meta.url);" },
  });
  const { version } = await import('esbuild');
  return { kind: 'bundle', path, sha256: await sha256File(path), inputs_sha256: await digestInputs(result.metafile!.inputs), esbuild_version: version };
}

export async function buildPreparerSnapshot(outDir: string): Promise<PreparerBundle> {
  const script = join(outDir, 'sandbench-replay-snapshot.cjs');
  const blob = join(outDir, 'sandbench-replay.blob');
  // snapshot builder scripts must be one CommonJS file that requires only builtins
  const result = await build({ ...COMMON, entryPoints: [SNAPSHOT_ENTRY], format: 'cjs', outfile: script });
  await promisify(execFile)(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', script], { cwd: outDir });
  const { version } = await import('esbuild');
  return { kind: 'snapshot', path: blob, sha256: await sha256File(blob), inputs_sha256: await digestInputs(result.metafile!.inputs), esbuild_version: version };
}
