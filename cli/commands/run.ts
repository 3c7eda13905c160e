import type { Command } from 'commander';
import type { SpecOverrides } from '../../harness/spec/resolve-spec.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveGivenSpec } from '../../harness/spec/given-spec.ts';
import { EXIT_INFRASTRUCTURE } from '../../harness/run/disk-full.ts';
import { withSpecOverrideOptions } from '../parse-options.ts';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';

/** `run` exit code when a planned arm ended with zero valid formal trials (the bundle is still written). */
export const EXIT_NO_VALID_TRIALS = 4;
import { parseShard, type ShardSelector } from '../../harness/fleet/shard-plan.ts';

/** The spec overrides plus the options that only steer the run. */
interface RunFlags extends SpecOverrides {
  out?: string;
  resume?: string;
  dockerHost?: string;
  requireAll?: boolean;
  keepGoing?: boolean;
  json?: boolean;
  shard?: ShardSelector;
}

const EXIT_ON_SIGNAL: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export function registerRun(program: Command): void {
  withSpecOverrideOptions(
    program
      .command('run')
      .description('Run an experiment spec: seeded interleaved trials on real backends → a verifiable bundle')
      .argument('[spec]', 'experiment spec (YAML), e.g. experiments/specs/quick.yaml'),
  )
    .option('--out <dir>', 'bundle directory (default runs/<run-id>)')
    .option('--resume <bundle>', 'continue a run that was killed, re-running the trial that was in flight')
    .option('--docker-host <url>', 'use this Docker engine instead of starting a private dockerd (never stopped by sandbench)')
    .option('--require-all', 'fail instead of skipping arms whose backend is unavailable')
    .option('--keep-going', 'record an arm whose build cannot start a sandbox (a real start before the first trial) as skipped instead of refusing the run')
    .addHelpText('after', `\nExit codes: 0 ok; 2 bad input; ${EXIT_INFRASTRUCTURE} infrastructure: the disk filled mid-run (the message names the path, the free space and the \`run --resume\` command; the journal stays resumable); ${EXIT_NO_VALID_TRIALS} when an arm ended with zero valid formal trials (named on stderr with its dominant failure category; the bundle is still written and verifiable; an arm whose every trial is not_applicable on its backend is named but does not count); 130/143 interrupted.`)
    .option('--json', 'print the analysis as one JSON document on stdout (as `analyze --json`); the summary table and the bundle path go to stderr')
    .option('--shard <i/N>', 'run only shard i of N (blocks b with b mod N = i) of the plan, for `sandbench merge` (docs/fleet.md)', parseShard('--shard'))
    .action(async (specPath: string | undefined, flags: RunFlags) => {
      const log = (message: string) => process.stderr.write(`sandbench: ${message}\n`);
      // A bad spec (an absurd size included) is refused before the run loop, executors and renderers
      // load (imported below, not at the top): in the time `plan` takes. runSpec resolves it again, cheaply.
      if (specPath && !flags.resume) resolveGivenSpec(specPath, pick(flags), (await import('../../experiments/registry.ts')).SPEC_KINDS);
      const [{ runSpec }, { runWiring }, { terminalSummary }, { analyzedBundle }, { analysisJson, armsWithoutValidTrials, armsNotApplicable }] = await Promise.all([
        import('../../harness/run/run-spec.ts'),
        import('../wiring.ts'),
        import('../../reports/render/terminal-summary.ts'),
        import('../kinds.ts'),
        import('../../harness/analyze/index.ts'),
      ]);
      const result = await runSpec({
        specPath,
        overrides: pick(flags),
        out: flags.out,
        resume: flags.resume,
        dockerHost: flags.dockerHost,
        requireAll: Boolean(flags.requireAll),
        keepGoing: Boolean(flags.keepGoing),
        shard: flags.shard,
        log,
        wiring: await runWiring(),
      });
      const summaryPath = join(result.bundleDir, BUNDLE_FILES.summary);
      const analyzed = existsSync(summaryPath) ? await analyzedBundle(result.bundleDir) : null;
      // Headline first, rendered from the bundle's analysis (the numbers of summary.csv and comparisons.csv).
      const human = flags.json ? process.stderr : process.stdout;
      if (analyzed) human.write(`${terminalSummary(analyzed)}\n`);
      human.write(`bundle: ${result.bundleDir}\n`);
      if (flags.json && analyzed) process.stdout.write(`${JSON.stringify(analysisJson(analyzed.analysis), null, 2)}\n`);
      // An arm that measured nothing must fail a CI job, even though the bundle is complete and verifiable.
      const empty = analyzed ? armsWithoutValidTrials(analyzed.analysis) : [];
      for (const arm of empty) log(`arm ${arm.arm}: 0 of ${arm.planned} formal trials valid (mostly ${arm.dominant}); exit ${EXIT_NO_VALID_TRIALS}`);
      // Asked for by the spec but impossible on its backend: named, recorded with the reason, not a failed measurement.
      for (const arm of analyzed ? armsNotApplicable(analyzed.analysis) : []) log(`arm ${arm.arm}: not applicable on its backend (${arm.planned} planned trials recorded as not_applicable; the bundle says why)`);
      if (empty.length > 0) process.exitCode = EXIT_NO_VALID_TRIALS;
      if (result.interruptedBy) process.exitCode = EXIT_ON_SIGNAL[result.interruptedBy] ?? 1;
    });
}

function pick(flags: RunFlags) {
  const overrides: Record<string, unknown> = {};
  for (const key of ['arms', 'trials', 'warmups', 'seed', 'concurrency', 'batches'] as const) if (flags[key] !== undefined) overrides[key] = flags[key];
  return overrides;
}
