import type { Command } from 'commander';
import { basename, dirname, join, resolve } from 'node:path';
import { analyzedBundle } from '../kinds.ts';
import { compareBundles } from '../../reports/compare/bundle-comparison.ts';
import { comparabilityLines, comparisonTableOf, formatTextTable, writeComparison } from '../../reports/compare/compare-output.ts';
import { UserError } from '../../harness/errors.ts';

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('Compare two bundles arm by arm and metric by metric: candidate/baseline ratios of medians with bootstrap CIs; writes comparison.csv, comparison.md, comparison.html')
    .argument('<baseline>', 'baseline bundle directory')
    .argument('<candidate>', 'candidate bundle directory')
    .option('--out <dir>', 'where to write comparison.csv and the small report (default: <candidate>-vs-<baseline> beside the candidate; a bundle itself is never modified, so it still verifies)')
    .option('--metric <names>', 'comma-separated metrics to compare (default: every metric)')
    .option('--allow-env-mismatch', 'compare even when CPU model, kernel, backend versions, image digest or controls differ (adds a comparability warning)')
    .action(async (baselineDir: string, candidateDir: string, options: { out?: string; metric?: string; allowEnvMismatch?: boolean }) => {
      const baseline = await analyzedBundle(baselineDir);
      const candidate = await analyzedBundle(candidateDir);
      const metrics = options.metric?.split(',').map((m) => m.trim()).filter(Boolean);
      const comparison = compareBundles(baseline, candidate, { metrics });
      if (comparison.env.differences.length > 0 && !options.allowEnvMismatch) {
        const lines = comparison.env.differences.map((d) => `  ${d.key}: baseline ${d.baseline ?? '(not recorded)'} vs candidate ${d.candidate ?? '(not recorded)'}`);
        throw new UserError(`refusing to compare bundles measured in different environments:\n${lines.join('\n')}\n(rerun both on one host, or pass --allow-env-mismatch to compare anyway with a warning)`, 3);
      }
      if (comparison.env.differences.length > 0) process.stdout.write('COMPARABILITY WARNING: environments differ (--allow-env-mismatch)\n');
      for (const line of comparabilityLines(comparison)) process.stdout.write(`note: ${line}\n`);
      process.stdout.write(`${formatTextTable(comparisonTableOf(comparison))}\n`);
      const files = writeComparison(comparison, options.out ?? defaultComparisonDir(baselineDir, candidateDir), Boolean(options.allowEnvMismatch));
      process.stdout.write(`wrote ${files.csv}, ${files.markdown}, ${files.html}\n`);
    });
}

function defaultComparisonDir(baselineDir: string, candidateDir: string): string {
  const name = (dir: string) => basename(resolve(dir));
  return join(dirname(resolve(candidateDir)), `${name(candidateDir)}-vs-${name(baselineDir)}`);
}
