/**
 * `sandbench schema [name]`: print one published JSON Schema (the same text schemas/ holds), or
 * list them. For pipelines in other languages that validate the spec, a `--json` document or a
 * bundle file without reading TypeScript.
 */
import type { Command } from 'commander';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('Print the JSON Schema of the spec, a --json output or a bundle file (schemas/*.json); without a name, list them')
    .argument('[name]', 'schema name, e.g. spec, analysis, gate, bundle-resolved-spec')
    .action(async (name: string | undefined) => {
      const { PUBLISHED_SCHEMAS, publishedFileName, publishedSchema, schemaFileText } = await import('../json-schemas.ts');
      if (!name) {
        for (const entry of PUBLISHED_SCHEMAS) process.stdout.write(`${entry.name.padEnd(22)} v${entry.version}  ${publishedFileName(entry).padEnd(40)} ${entry.description}\n`);
        return;
      }
      const entry = publishedSchema(name);
      const { SPEC_KINDS } = await import('../../experiments/registry.ts');
      process.stdout.write(schemaFileText(entry, SPEC_KINDS));
    });
}
