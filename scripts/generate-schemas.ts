/**
 * `npm run schemas`: regenerate schemas/ from the zod schemas (cli/json-schemas.ts). Writes one
 * file per published schema and removes files no schema produces any more, so the folder is
 * exactly the catalog. test/schemas/published-schemas.test.ts fails when this was not run.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PUBLISHED_SCHEMAS, publishedFileName, schemaFileText } from '../cli/json-schemas.ts';
import { SPEC_KINDS } from '../experiments/registry.ts';
import { PROJECT_ROOT } from '../harness/state-dir.ts';

const dir = join(PROJECT_ROOT, 'schemas');
mkdirSync(dir, { recursive: true });
const written = new Set<string>();
for (const entry of PUBLISHED_SCHEMAS) {
  const file = publishedFileName(entry);
  writeFileSync(join(dir, file), schemaFileText(entry, SPEC_KINDS));
  written.add(file);
}
for (const file of readdirSync(dir)) if (file.endsWith('.schema.json') && !written.has(file)) rmSync(join(dir, file));
process.stderr.write(`schemas: ${written.size} files in ${dir}\n`);
