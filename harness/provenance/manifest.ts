/**
 * manifest.json: the sha256 of every file in a bundle plus the facts needed to trust it (spec hash,
 * seed, harness commit and dirty flag, tool versions, image digests). `verify` re-hashes every file
 * and fails, naming the file, on any change, addition or removal.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { HarnessCommitSchema } from './invocations.ts';

export const MANIFEST_SCHEMA_VERSION = 1;

export const ManifestSchema = z.object({
  schema_version: z.literal(MANIFEST_SCHEMA_VERSION),
  run_id: z.string(),
  spec_sha256: z.string(),
  seed: z.number(),
  harness_commit: z.string().nullable(),
  harness_dirty: z.boolean().nullable(),
  /** Every harness revision that wrote trials to the bundle, in order (invocations.jsonl); absent in bundles older than that file. */
  harness_commits: z.array(HarnessCommitSchema).optional(),
  tool_versions: z.record(z.string(), z.string()),
  image_digests: z.record(z.string(), z.string()),
  resumed: z.boolean(),
  resume_count: z.number().int().nonnegative(),
  complete: z.boolean(),
  files: z.record(z.string(), z.string()),
});
export type Manifest = z.infer<typeof ManifestSchema>;

function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/**
 * Every regular file under the bundle except the manifest and its signature (made after it, over
 * it), as sorted relative paths. A part's signature below the top (shards/<i>/) is an ordinary file.
 */
export function bundleFiles(bundleDir: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(relative(bundleDir, path));
    }
  };
  walk(bundleDir);
  return files.filter((file) => file !== BUNDLE_FILES.manifest && file !== BUNDLE_FILES.signature).sort();
}

export function writeManifest(bundleDir: string, facts: Omit<Manifest, 'schema_version' | 'files'>): Manifest {
  const files = Object.fromEntries(bundleFiles(bundleDir).map((file) => [file, sha256File(join(bundleDir, file))]));
  const manifest: Manifest = { schema_version: MANIFEST_SCHEMA_VERSION, ...facts, files };
  writeFileSync(join(bundleDir, BUNDLE_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

export function readManifest(bundleDir: string): Manifest {
  const path = join(bundleDir, BUNDLE_FILES.manifest);
  if (!existsSync(path)) throw new Error(`${path}: missing (not a finished sandbench bundle)`);
  return ManifestSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

export interface VerifyProblem {
  file: string;
  problem: 'changed' | 'missing' | 'unexpected';
}

export function verifyBundle(bundleDir: string): VerifyProblem[] {
  const manifest = readManifest(bundleDir);
  const problems: VerifyProblem[] = [];
  for (const [file, digest] of Object.entries(manifest.files)) {
    const path = join(bundleDir, file);
    if (!existsSync(path)) problems.push({ file, problem: 'missing' });
    else if (sha256File(path) !== digest) problems.push({ file, problem: 'changed' });
  }
  for (const file of bundleFiles(bundleDir)) if (!(file in manifest.files)) problems.push({ file, problem: 'unexpected' });
  return problems;
}
