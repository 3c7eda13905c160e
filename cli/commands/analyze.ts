import type { Command } from 'commander';
import { analyzeBundle, AnalysisInputError } from '../../harness/analyze/index.ts';
import { UserError } from '../../harness/errors.ts';
import { kindCatalog } from '../kinds.ts';

export function registerAnalyze(program: Command): void {
  program
    .command('analyze')
    .description('Regenerate samples, summary, diagnostics, comparisons and evidence CSVs of a bundle from its journal (byte-identical on every run)')
    .argument('<bundle>', 'bundle directory (runs/<run-id>)')
    .action(async (bundle: string) => {
      const kinds = await kindCatalog();
      let result;
      try {
        result = analyzeBundle(bundle, kinds);
      } catch (error) {
        if (error instanceof AnalysisInputError) throw new UserError(error.message);
        throw error;
      }
      for (const warning of result.warnings) process.stderr.write(`sandbench: warning: ${warning}\n`);
      for (const file of result.files) process.stdout.write(`${bundle}/${file}\n`);
    });
}
