import type { Command } from 'commander';
import { analyzedBundle } from '../kinds.ts';
import { splitBlocks } from '../../reports/gate/aa-split.ts';
import { gateBundles, type GateOptions } from '../../reports/gate/gate.ts';
import { gateText, writeGateReport } from '../../reports/gate/gate-output.ts';
import { parseThreshold, readGateFile } from '../../reports/gate/threshold.ts';
import { UserError } from '../../harness/errors.ts';

interface GateCliOptions {
  metric?: string[];
  threshold?: string;
  gateFile?: string;
  maxFailedFraction?: string;
  aa?: boolean;
  allowEnvMismatch?: boolean;
  out?: string;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

function gateOptions(options: GateCliOptions): GateOptions {
  const file = options.gateFile ? readGateFile(options.gateFile) : {};
  let maxFailedFraction = file.maxFailedFraction;
  if (options.maxFailedFraction !== undefined) {
    maxFailedFraction = Number(options.maxFailedFraction);
    if (!Number.isFinite(maxFailedFraction) || maxFailedFraction < 0 || maxFailedFraction > 1) {
      throw new UserError(`--max-failed-fraction "${options.maxFailedFraction}": expected a fraction between 0 and 1, e.g. 0.05`);
    }
  }
  return {
    metrics: options.metric ?? (file.metrics ? Object.keys(file.metrics).sort() : undefined),
    thresholds: file.metrics,
    threshold: options.threshold !== undefined ? parseThreshold(options.threshold, '--threshold') : file.threshold,
    maxFailedFraction,
    arms: file.arms,
    allowEnvMismatch: options.allowEnvMismatch,
  };
}

export function registerGate(program: Command): void {
  program
    .command('gate')
    .description('Non-inferiority regression gate on the ratio of medians: exit 0 pass, 1 regression, 2 inconclusive, 3 invalid (missing data, failures, unmatched arms, environment mismatch)')
    .argument('<baseline>', 'baseline bundle (with --aa: the one bundle split into halves)')
    .argument('[candidate]', 'candidate bundle')
    .option('--metric <name>', 'metric to gate (repeatable or comma-separated; default: the spec compare metrics, else every *_ms metric)', collect)
    .option('--threshold <pct>', 'allowed slowdown before a regression, e.g. 5% (default 5%)')
    .option('--gate-file <file>', 'YAML/JSON: threshold, max_failed_fraction, metrics: {name: threshold}, arms')
    .option('--max-failed-fraction <f>', 'failed or invalid formal trials allowed per arm (default 0.05)')
    .option('--aa', "A/A: gate the bundle's first half of blocks against its second half (this host's false-regression rate)")
    .option('--allow-env-mismatch', 'do not refuse when the environments differ (warning only)')
    .option('--out <dir>', 'also write gate.csv, gate.md and gate.html (forest plot with the pass band) here')
    .action(async (baselineDir: string, candidateDir: string | undefined, options: GateCliOptions) => {
      const gate = gateOptions(options);
      let result;
      if (options.aa) {
        if (candidateDir) throw new UserError('--aa takes one bundle (it is split into halves); drop the second bundle argument');
        const bundle = await analyzedBundle(baselineDir);
        const { first, second } = splitBlocks(bundle);
        result = gateBundles(first, second, { ...gate, aaSource: bundle });
      } else {
        if (!candidateDir) throw new UserError('gate needs <baseline> <candidate> (or one bundle with --aa)');
        result = gateBundles(await analyzedBundle(baselineDir), await analyzedBundle(candidateDir), gate);
      }
      process.stdout.write(gateText(result));
      if (options.out) process.stdout.write(`wrote ${writeGateReport(result, options.out).join(', ')}\n`);
      process.exitCode = result.exitCode;
    });
}
