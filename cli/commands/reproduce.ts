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

export function registerReproduce(program: Command): void {
  program
    .command('reproduce')
    .description('Side by side with the published pVisor study: published value, ours with CI, ratios between backends, whether each published ordering holds; lists unmatched rows with why')
    .argument('<bundle>', 'bundle directory (runs/<run-id>)')
    .option('--published <csv>', 'published figures (topic,source_file,batch_date,backend,statistic,n,value,unit,limits)', DEFAULT_PUBLISHED)
    .option('--mapping <json>', 'join mapping (default: <published>-mapping.json)')
    .option('--out <dir>', 'where to write reproduction.csv, reproduction-orderings.csv and reproduction.md (default: the bundle)')
    .action(async (bundleDir: string, options: { published: string; mapping?: string; out?: string }) => {
      // Reproduce renders the bundle's analysis; a copied bundle without its CSVs gets them written first.
      const missing = existsSync(join(bundleDir, BUNDLE_FILES.resolvedSpec)) && !existsSync(join(bundleDir, BUNDLE_FILES.evidence));
      const bundle = await analyzedBundle(bundleDir, { write: missing });
      if (missing) process.stderr.write(`${bundleDir}: evidence.csv was missing; analysed the journal first\n`);
      const published = readPublished(options.published);
      const mapping = readMapping(options.mapping ?? mappingPathFor(options.published));
      const result = reproduce(bundle, published, mapping);
      process.stdout.write(reproductionText(result));
      const shown = relative(PROJECT_ROOT, options.published).startsWith('..') ? options.published : relative(PROJECT_ROOT, options.published);
      process.stdout.write(`wrote ${writeReproduction(result, options.out ?? bundleDir, shown).join(', ')}\n`);
    });
}
