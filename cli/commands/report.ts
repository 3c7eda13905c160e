import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import { writeReport } from '../../reports/index.ts';
import { analyzedBundle } from '../kinds.ts';

export function registerReport(program: Command): void {
  program
    .command('report')
    .description('Write report.html (self-contained, inline SVG plots) and report.md (headline tables, methods in <details>) for a finished bundle')
    .argument('<bundle>', 'bundle directory (runs/<run-id>)')
    .action(async (bundle: string) => {
      // A bundle whose analysis never ran (e.g. copied from an interrupted run) is analysed first; analysis is pure and deterministic.
      const missing = existsSync(join(bundle, BUNDLE_FILES.resolvedSpec)) && !existsSync(join(bundle, BUNDLE_FILES.summary));
      const analyzed = await analyzedBundle(bundle, { write: missing });
      if (missing) process.stderr.write(`${bundle}: summary.csv was missing; analysed the journal first\n`);
      const files = writeReport(analyzed);
      process.stdout.write(`${files.html}\n${files.markdown}\n`);
    });
}
