/**
 * Writing derived files into a bundle: synchronously (run hashes the bundle right after) and in a
 * stable order, so two writes of the same analysis leave byte-identical files.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes name → content into the bundle directory; returns the names in the order written. */
export function writeBundleFiles(dir: string, files: ReadonlyMap<string, string>): string[] {
  for (const [name, content] of files) writeFileSync(join(dir, name), content);
  return [...files.keys()];
}

/** A JSON file of the bundle: two-space indent and a final newline, as every bundle JSON file is written. */
export function bundleJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
