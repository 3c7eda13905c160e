/**
 * Compiles the replay preparer (preparer-entry.ts and what it imports) to one plain-JS ESM file with
 * esbuild, once per run and outside timing. Each attempt is timed launch to exit, and loading the
 * TypeScript through tsx costs far more than the preparation itself (measured figures in
 * docs/canonical-history.md), so the timed subject is the compiled file; the `tsx-lean` and `cli`
 * entries stay selectable in the spec to measure that cost.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

const ENTRY = new URL('./preparer-entry.ts', import.meta.url).pathname;

export interface PreparerBundle {
  path: string;
  sha256: string;
  /** sha256 over the sorted (path, sha256) of every bundled source file. */
  inputs_sha256: string;
  esbuild_version: string;
}

export async function buildPreparerBundle(outDir: string): Promise<PreparerBundle> {
  const path = join(outDir, 'sandbench-replay.mjs');
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: path,
    metafile: true,
    logLevel: 'silent',
    // commander is CommonJS; give the ESM bundle a require for its `require('node:events')`.
    banner: { js: "import { createRequire as __sandbenchRequire } from 'node:module'; const require = __sandbenchRequire(import.meta.url);" },
  });
  const inputs = Object.keys(result.metafile.inputs).sort();
  const inputHash = createHash('sha256');
  for (const input of inputs) inputHash.update(`${input}\0${createHash('sha256').update(await readFile(input)).digest('hex')}\n`);
  const { version } = await import('esbuild');
  return { path, sha256: createHash('sha256').update(await readFile(path)).digest('hex'), inputs_sha256: inputHash.digest('hex'), esbuild_version: version };
}
