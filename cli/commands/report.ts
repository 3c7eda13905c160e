import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { analyzeBundle, AnalysisInputError } from '../../harness/analyze/index.ts';
import { BUNDLE_FILES } from '../../harness/bundle-layout.ts';
import { writeReport } from '../../reports/index.ts';
import { UserError } from '../../harness/errors.ts';
import { kindCatalog } from '../kinds.ts';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('Write report.html (self-contained, inline SVG plots) and report.md (headline tables, methods in <details>) for a finished bundle')
    .argument('<bundle>', 'bundle directory (runs/<run-id>)')
    .action(async (bundle: string) => {
      // A bundle whose analysis never ran (e.g. copied from an interrupted run) is analysed first; analysis is pure and deterministic.
      if (existsSync(join(bundle, BUNDLE_FILES.resolvedSpec)) && !existsSync(join(bundle, BUNDLE_FILES.summary))) {
        try {
          analyzeBundle(bundle, await kindCatalog());
          process.stderr.write(`${bundle}: summary.csv was missing; analysed the journal first\n`);
        } catch (error) {
          if (error instanceof AnalysisInputError) throw new UserError(error.message);
          throw error;
        }
      }
      const files = writeReport(bundle);
      process.stdout.write(`${files.html}\n${files.markdown}\n`);
    });
}
