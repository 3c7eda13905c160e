import type { Command } from 'commander';
import { basename, dirname, join, resolve } from 'node:path';
import { analyzedBundle } from '../kinds.ts';
import { compareBundles } from '../../reports/compare/bundle-comparison.ts';
import { comparabilityLines, comparisonTableOf, formatTextTable, writeComparison } from '../../reports/compare/compare-output.ts';
import { UserError } from '../../harness/errors.ts';
import { compareJson, jsonDocument } from '../../reports/json/index.ts';

export function registerCompare(program: Command): void {
  program
    .command('compare')
    .description('Compare two bundles arm by arm and metric by metric: candidate/baseline ratios of medians with bootstrap CIs; writes comparison.csv, comparison.md, comparison.html')
    .argument('<baseline>', 'baseline bundle directory')
    .argument('<candidate>', 'candidate bundle directory')
    .option('--out <dir>', 'where to write comparison.csv and the small report (default: <candidate>-vs-<baseline> beside the candidate; a bundle itself is never modified, so it still verifies)')
    .option('--metric <names>', 'comma-separated metrics to compare (default: every metric)')
    .option('--allow-env-mismatch', 'compare even when CPU model, kernel, backend versions, image digest or controls differ (adds a comparability warning)')
    .option('--json', 'print the comparison as one JSON document on stdout (CompareJsonSchema: the comparison.csv cells); the table goes to stderr')
    .action(async (baselineDir: string, candidateDir: string, options: { out?: string; metric?: string; allowEnvMismatch?: boolean; json?: boolean }) => {
      const baseline = await analyzedBundle(baselineDir);
      const candidate = await analyzedBundle(candidateDir);
      const metrics = options.metric?.split(',').map((m) => m.trim()).filter(Boolean);
      const comparison = compareBundles(baseline, candidate, { metrics });
      if (comparison.env.differences.length > 0 && !options.allowEnvMismatch) {
        const lines = comparison.env.differences.map((d) => `  ${d.key}: baseline ${d.baseline ?? '(not recorded)'} vs candidate ${d.candidate ?? '(not recorded)'}`);
        throw new UserError(`refusing to compare bundles measured in different environments:\n${lines.join('\n')}\n(rerun both on one host, or pass --allow-env-mismatch to compare anyway with a warning)`, 3);
      }
      const human = options.json ? process.stderr : process.stdout;
      if (comparison.env.differences.length > 0) human.write('COMPARABILITY WARNING: environments differ (--allow-env-mismatch)\n');
      for (const line of comparabilityLines(comparison)) human.write(`note: ${line}\n`);
      human.write(`${formatTextTable(comparisonTableOf(comparison))}\n`);
      const files = writeComparison(comparison, options.out ?? defaultComparisonDir(baselineDir, candidateDir), Boolean(options.allowEnvMismatch));
      human.write(`wrote ${files.csv}, ${files.markdown}, ${files.html}\n`);
      if (options.json) process.stdout.write(jsonDocument(compareJson(comparison, Boolean(options.allowEnvMismatch), files)));
    });
}

function defaultComparisonDir(baselineDir: string, candidateDir: string): string {
  const name = (dir: string) => basename(resolve(dir));
  return join(dirname(resolve(candidateDir)), `${name(candidateDir)}-vs-${name(baselineDir)}`);
}
