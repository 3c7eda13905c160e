import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { analyzedBundle } from '../kinds.ts';
import { splitBlocks } from '../../reports/gate/aa-split.ts';
import { calibrate, calibrationText, writeCalibration } from '../../reports/gate/calibrate.ts';
import { gateBundles, gateInterleaved, type GateOptions } from '../../reports/gate/gate.ts';
import { gateText, writeGateReport } from '../../reports/gate/gate-output.ts';
import { writeGateJunit, writeGateSummary, type JunitInconclusive } from '../../reports/gate/gate-ci.ts';
import { gateJson, jsonDocument } from '../../reports/json/index.ts';
import { interleavedArms } from '../../reports/gate/default-arms.ts';
import { parseThreshold, readGateFile } from '../../reports/gate/threshold.ts';
import { GATE_STATISTICS, type GateStatistic } from '../../harness/stats/index.ts';
import { UserError } from '../../harness/errors.ts';

interface GateCliOptions {
  metric?: string[];
  threshold?: string;
  gateFile?: string;
  maxFailedFraction?: string;
  aa?: boolean;
  allowEnvMismatch?: boolean;
  out?: string;
  statistic?: string;
  baselineArm?: string;
  candidateArm?: string;
  baseline?: string[];
  candidate?: string[];
  calibrate?: boolean;
  json?: boolean;
  junit?: string;
  junitInconclusive?: string;
  summaryMd?: string;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter(Boolean)];
}

function junitInconclusiveOf(raw: string | undefined): JunitInconclusive {
  if (raw === undefined || raw === 'failure' || raw === 'skipped') return raw ?? 'failure';
  throw new UserError(`--junit-inconclusive: "${raw}" is not failure or skipped`);
}

function statisticOf(raw: string | undefined, fallback: GateStatistic | undefined): GateStatistic | undefined {
  if (raw === undefined) return fallback;
  if (!(GATE_STATISTICS as readonly string[]).includes(raw)) throw new UserError(`--statistic "${raw}": expected one of ${GATE_STATISTICS.join(', ')}`);
  return raw as GateStatistic;
}

function gateOptions(options: GateCliOptions, file: ReturnType<typeof readGateFile> | Record<string, never>): GateOptions {
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
    statistic: statisticOf(options.statistic, file.statistic),
    // --statistic on the command line applies to every metric; per-metric ones from the file otherwise.
    statistics: options.statistic !== undefined ? undefined : file.statistics,
    runVariance: file.runVariance,
    maxFailedFraction,
    arms: file.arms,
    allowEnvMismatch: options.allowEnvMismatch,
  };
}

/** A bundle directory, or a directory whose subdirectories are bundles (a baseline history). */
function expandRuns(paths: string[]): string[] {
  return paths.flatMap((p) => {
    if (!existsSync(p)) throw new UserError(`${p}: no such bundle or directory`);
    if (existsSync(join(p, 'resolved-spec.json')) || !statSync(p).isDirectory()) return [p];
    const runs = readdirSync(p).map((d) => join(p, d)).filter((d) => existsSync(join(d, 'resolved-spec.json'))).sort();
    if (runs.length === 0) throw new UserError(`${p}: neither a bundle (no resolved-spec.json) nor a directory of bundles`);
    return runs;
  });
}

export function registerGate(program: Command): void {
  program
    .command('gate')
    .description(
      'Non-inferiority regression gate on the ratio candidate / baseline (P50, or --statistic p90|p95): exit 0 pass, 1 regression, 2 inconclusive, 3 invalid (missing data, failures, unmatched arms, environment mismatch, separated clusters, undefined ratio). ' +
        'Recommended for CI: one run with both builds as arms, --baseline-arm A --candidate-arm B (interleaved, run offsets cancel).',
    )
    .argument('[bundles...]', '<baseline> <candidate>; one bundle with --baseline-arm/--candidate-arm or --aa; the A/A runs with --calibrate')
    .option('--baseline-arm <arm>', "interleaved A/B: the arm of the one bundle that is the baseline (default: the spec's compare control, else the first arm; said in the output)")
    .option('--candidate-arm <arm>', 'interleaved A/B: the arm of the one bundle that is the candidate')
    .option('--baseline <dirs...>', 'several baseline runs (or a directory of them): hierarchical bootstrap over runs, then blocks')
    .option('--candidate <dirs...>', 'candidate run(s) when --baseline is used')
    .option('--statistic <stat>', 'p50 (default), p90 or p95 (P95 needs ≥ 30 ok values per run)')
    .option('--calibrate', 'estimate the run-level variance from the given A/A runs (≥ 3, same build) and store it in --gate-file')
    .option('--metric <name>', 'metric to gate (repeatable or comma-separated; default: the spec compare metrics, else every *_ms metric)', collect)
    .option('--threshold <pct>', 'allowed slowdown before a regression, e.g. 5% (default 5%)')
    .option('--gate-file <file>', 'YAML/JSON: threshold, statistic, max_failed_fraction, metrics: {name: threshold | {threshold, statistic}}, arms, baseline_arm, candidate_arm, run_variance')
    .option('--max-failed-fraction <f>', 'failed or invalid formal trials allowed per arm (default 0.05)')
    .option('--aa', "A/A: gate the bundle's first half of blocks against its second half (this host's false-regression rate)")
    .option('--allow-env-mismatch', 'do not refuse when the environments differ (warning only)')
    .option('--out <dir>', 'also write gate.csv, gate.md and gate.html (forest plot with the pass band) here')
    .option('--junit <file>', 'also write JUnit XML: one testcase per gated arm × metric, a failure (regression, inconclusive) or error (invalid) carrying the verdict and CI')
    .option('--junit-inconclusive <as>', 'how --junit writes an inconclusive cell: failure (default) or skipped; the exit code stays 2')
    .option('--summary-md <file>', 'also write a GitHub-flavoured markdown summary (verdicts table, ratio chart); default: append to $GITHUB_STEP_SUMMARY when it is set')
    .option('--json', 'print the result as one JSON document on stdout (GateJsonSchema: the gate.csv cells); the table goes to stderr; the exit code is still the verdict')
    .action(async (bundles: string[], options: GateCliOptions) => {
      const file = options.gateFile && existsSync(options.gateFile) ? readGateFile(options.gateFile) : {};
      if (options.calibrate) {
        if (options.json) throw new UserError('--json prints a gate decision; --calibrate writes its estimate into the gate file instead (drop --json)');
        if (!options.gateFile) throw new UserError('--calibrate writes its result into a gate file: add --gate-file <file> (created when missing)');
        const runs = await Promise.all(expandRuns(bundles).map((d) => analyzedBundle(d)));
        const entries = calibrate(runs, { metrics: options.metric, statistic: statisticOf(options.statistic, 'statistic' in file ? file.statistic : undefined) });
        writeCalibration(options.gateFile, entries);
        process.stdout.write(`${calibrationText(entries)}\nwrote run_variance into ${options.gateFile}\n`);
        return;
      }
      if (options.gateFile && !existsSync(options.gateFile)) throw new UserError(`--gate-file ${options.gateFile}: no such file`);
      const gate = gateOptions(options, file);
      const baselineArm = options.baselineArm ?? ('baselineArm' in file ? file.baselineArm : undefined);
      const candidateArm = options.candidateArm ?? ('candidateArm' in file ? file.candidateArm : undefined);
      let result;
      if (baselineArm !== undefined || candidateArm !== undefined || (bundles.length === 1 && !options.aa && !options.baseline)) {
        if (bundles.length !== 1) throw new UserError(`interleaved A/B gates the two arms of ONE bundle; got ${bundles.length} bundle arguments`);
        const bundle = await analyzedBundle(bundles[0]!);
        // A side not named: the spec's compare pair, else the first arm is the control (said in the output).
        const sides = interleavedArms(bundle, baselineArm, candidateArm);
        result = gateInterleaved(bundle, sides.baseline, sides.candidate, gate);
        if (sides.note) result.warnings.unshift(`defaulted: ${sides.note}`);
      } else if (options.aa) {
        if (bundles.length !== 1) throw new UserError('--aa takes one bundle (it is split into halves)');
        const bundle = await analyzedBundle(bundles[0]!);
        const { first, second } = splitBlocks(bundle);
        result = gateBundles(first, second, { ...gate, aaSource: bundle });
      } else if (options.baseline) {
        const candidates = [...(options.candidate ?? []), ...bundles];
        if (candidates.length === 0) throw new UserError('--baseline needs the candidate run(s): --candidate <dir...> or a positional bundle');
        const baselineRuns = await Promise.all(expandRuns(options.baseline).map((d) => analyzedBundle(d)));
        const candidateRuns = await Promise.all(expandRuns(candidates).map((d) => analyzedBundle(d)));
        result = gateBundles(baselineRuns, candidateRuns, gate);
      } else {
        if (bundles.length !== 2) throw new UserError('gate needs <baseline> <candidate>, --baseline <runs...> --candidate <run>, one bundle with --baseline-arm/--candidate-arm, or one bundle with --aa');
        result = gateBundles(await analyzedBundle(bundles[0]!), await analyzedBundle(bundles[1]!), gate);
      }
      const human = options.json ? process.stderr : process.stdout;
      human.write(gateText(result));
      const files: string[] = [];
      if (options.out) files.push(...writeGateReport(result, options.out));
      if (options.junit) files.push(writeGateJunit(result, options.junit, { inconclusive: junitInconclusiveOf(options.junitInconclusive) }));
      // GitHub Actions sets GITHUB_STEP_SUMMARY per step: the gate's verdicts land on the run page without a flag.
      const stepSummary = process.env.GITHUB_STEP_SUMMARY;
      if (options.summaryMd) files.push(writeGateSummary(result, options.summaryMd, 'write'));
      else if (stepSummary) files.push(writeGateSummary(result, stepSummary, 'append'));
      if (files.length > 0) human.write(`wrote ${files.join(', ')}\n`);
      if (options.json) process.stdout.write(jsonDocument(gateJson(result, files)));
      process.exitCode = result.exitCode;
    });
}
