import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { DEFAULT_PUBLISHED, mappingPathFor, readMapping, readPublished } from '../../reports/reproduce/published.ts';
import { reproduce } from '../../reports/reproduce/reproduce.ts';
import { reproductionText, writeReproduction } from '../../reports/reproduce/reproduce-output.ts';
import { UserError } from '../../harness/errors.ts';
import { analyzedBundle } from '../kinds.ts';
import { jsonDocument, reproduceJson } from '../../reports/json/index.ts';

export function registerReproduce(program: Command): void {
  program
    .command('reproduce')
    .description('Side by side with the published pVisor study: published value, ours with CI, ratios between backends, whether each published ordering holds; lists unmatched rows with why')
    .argument('<bundle>', 'bundle directory (runs/<run-id>)')
    .option('--published <csv>', 'published figures (topic,source_file,batch_date,backend,statistic,n,value,unit,limits)', DEFAULT_PUBLISHED)
    .option('--mapping <json>', 'join mapping (default: <published>-mapping.json)')
    .option('--out <dir>', 'where to write reproduction.csv, reproduction-orderings.csv and reproduction.md (default: the bundle)')
    .option('--json', 'print the reproduction as one JSON document on stdout (ReproduceJsonSchema: the reproduction CSV cells); the tables go to stderr')
    .action(async (bundleDir: string, options: { published: string; mapping?: string; out?: string; json?: boolean }) => {
      // Reproduce renders the bundle's analysis; a copied bundle without its CSVs gets them written first.
      const missing = existsSync(join(bundleDir, BUNDLE_FILES.resolvedSpec)) && !existsSync(join(bundleDir, BUNDLE_FILES.evidence));
      const bundle = await analyzedBundle(bundleDir, { write: missing });
      if (missing) process.stderr.write(`${bundleDir}: evidence.csv was missing; analysed the journal first\n`);
      const published = readPublished(options.published);
      const mapping = readMapping(options.mapping ?? mappingPathFor(options.published));
      const result = reproduce(bundle, published, mapping);
      const human = options.json ? process.stderr : process.stdout;
      human.write(reproductionText(result));
      const shown = relative(PROJECT_ROOT, options.published).startsWith('..') ? options.published : relative(PROJECT_ROOT, options.published);
      const files = writeReproduction(result, options.out ?? bundleDir, shown);
      human.write(`wrote ${files.join(', ')}\n`);
      if (options.json) process.stdout.write(jsonDocument(reproduceJson(result, files)));
    });
}
