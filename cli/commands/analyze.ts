import type { Command } from 'commander';
import { analysisJson, analyzeBundle, AnalysisInputError } from '../../harness/analyze/index.ts';
import { UserError } from '../../harness/errors.ts';
import { kindCatalog } from '../kinds.ts';

export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description('Regenerate samples, summary, diagnostics, comparisons and evidence CSVs of a bundle from its journal (byte-identical on every run)')
    .argument('<bundle>', 'bundle directory (runs/<run-id>)')
    .option('--json', 'print the analysis as one JSON document on stdout (schema_version, summary and comparison rows as in the CSVs); file names go to stderr')
    .action(async (bundle: string, options: { json?: boolean }) => {
      const kinds = await kindCatalog();
      let result;
      try {
        result = analyzeBundle(bundle, kinds);
      } catch (error) {
        if (error instanceof AnalysisInputError) throw new UserError(error.message);
        throw error;
      }
      for (const warning of result.warnings) process.stderr.write(`sandbench: warning: ${warning}\n`);
      const listing = options.json ? process.stderr : process.stdout;
      for (const file of result.files) listing.write(`${bundle}/${file}\n`);
      if (options.json) process.stdout.write(`${JSON.stringify(analysisJson(result.analysis), null, 2)}\n`);
    });
}
