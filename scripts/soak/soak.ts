/**
 * `npm run soak -- --hours H`: runs the mixed campaign of scripts/soak/campaign.ts in a loop for H
 * hours while sampling every resource of scripts/soak/resources.ts, then judges each series for
 * unbounded growth (scripts/soak/verdict.ts) and writes the table and the series (docs/soak.md).
 * Exit 0 when nothing grew and every step succeeded, 1 otherwise, 2 on bad options.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { csvTable, markdownTable, textTable } from '../../harness/analyze/table.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { BUILTIN_LEFTOVER_SOURCES } from '../../executors/registry.ts';
import { runWiring } from '../../cli/wiring.ts';
import { growthLines, topGrowth, TREE_SERIES, type TreeSeries } from './attribution.ts';
import { campaignSteps, CAMPAIGN_PROFILES, type CampaignProfile } from './campaign.ts';
import { measure } from './measure.ts';
import { seriesCsv, stepsCsv, verdictTable, type Sample, type StepRecord } from './report.ts';
import { RESOURCES } from './resources.ts';
import { takeSnapshot, type HostSnapshot, type SnapshotContext } from './snapshot.ts';
import { judgeSeries, soakPassed, type ResourceVerdict } from './verdict.ts';

interface SoakOptions {
  hours: number;
  sampleSeconds: number;
  campaign: CampaignProfile;
  out: string;
  keepBundles: number;
}

function positiveNumber(option: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${option} ${value}: expected a number > 0, e.g. ${option} 1`);
    return n;
  };
}

function parseOptions(argv: string[]): SoakOptions {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return new Command('soak')
    .description('Run a mixed sandbench campaign in a loop and fail on any resource that grows without bound')
    .requiredOption('--hours <h>', 'how long to loop the campaign (fractions allowed: 0.08 ≈ 5 min)', positiveNumber('--hours'))
    .option('--sample-seconds <s>', 'seconds between samples', positiveNumber('--sample-seconds'), 60)
    .addOption(new Option('--campaign <profile>', 'full: every fast backend per step; ci: fewer arms').choices(CAMPAIGN_PROFILES).default('full'))
    .option('--out <dir>', 'where the table, the series and the kept bundles go', `/var/tmp/sb-soak-${stamp}`)
    .option('--keep-bundles <n>', 'newest bundles kept; older ones are pruned', positiveNumber('--keep-bundles'), 3)
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
    .parse(argv, { from: 'user' })
    .opts<SoakOptions>();
}

/** Keeps the newest `keep` bundles (names sort by sequence number). */
function pruneBundles(bundlesDir: string, keep: number): void {
  const names = readdirSync(bundlesDir).sort();
  for (const name of names.slice(0, Math.max(0, names.length - keep))) rmSync(join(bundlesDir, name), { recursive: true, force: true });
}

function judge(samples: readonly Sample[]): { verdicts: ResourceVerdict[]; judged: number } {
  const judged = samples.filter((s) => !s.warmup);
  const verdicts = RESOURCES.map((resource) => judgeSeries(resource, judged.map((s) => ({ minute: s.minute, value: s.values[resource.id] ?? null }))));
  return { verdicts, judged: judged.length };
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2).filter((arg) => arg !== '--'));
  const out = resolve(options.out);
  const bundlesDir = join(out, 'bundles');
  mkdirSync(bundlesDir, { recursive: true });
  const log = (message: string) => process.stderr.write(`soak ${new Date().toISOString()}: ${message}\n`);
  const context: SnapshotContext = { stateDir: stateDir(), bundlesDir, leftoverSources: BUILTIN_LEFTOVER_SOURCES };
  const wiring = await runWiring();
  const steps = campaignSteps(options.campaign);
  const started = Date.now();
  const deadline = started + options.hours * 3_600_000;
  const samples: Sample[] = [];
  const records: StepRecord[] = [];
  let bundlesWritten = 0;
  let warmupOver = false;
  let stopping = false;
  process.once('SIGINT', () => void (stopping = true));
  log(`campaign ${options.campaign} for ${options.hours} h, a sample every ${options.sampleSeconds} s, state dir ${context.stateDir}, out ${out}`);

  // The first judged and the latest snapshot, for naming the entries a file count grew in.
  let firstJudged: HostSnapshot | null = null;
  let latest: HostSnapshot | null = null;
  const sampleNow = async () => {
    const snapshot = await takeSnapshot(context);
    if (warmupOver && firstJudged === null) firstJudged = snapshot;
    latest = snapshot;
    const values = measure(snapshot, bundlesWritten);
    samples.push({ at: new Date().toISOString(), minute: (Date.now() - started) / 60_000, warmup: !warmupOver, values });
    writeFileSync(join(out, 'series.csv'), seriesCsv(samples));
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const tick = Date.now();
      await sampleNow().catch((error: unknown) => log(`sample failed: ${error instanceof Error ? error.message : String(error)}`));
      const wait = options.sampleSeconds * 1000 - (Date.now() - tick);
      for (let waited = 0; sampling && waited < wait; waited += 250) await new Promise((r) => setTimeout(r, 250));
    }
  })();

  for (let cycle = 1; Date.now() < deadline && !stopping; cycle++) {
    for (const step of steps) {
      if (Date.now() >= deadline || stopping) break;
      const bundleDir = join(bundlesDir, `${String(bundlesWritten + 1).padStart(5, '0')}-${step.name}`);
      const stepStart = Date.now();
      let error: string | null = null;
      log(`cycle ${cycle}: ${step.name}`);
      try {
        await step.run({ bundleDir, wiring, log: (message) => log(`  ${message}`) });
      } catch (caught) {
        error = caught instanceof Error ? caught.message : String(caught);
        log(`cycle ${cycle}: ${step.name} FAILED: ${error}`);
      }
      bundlesWritten++;
      records.push({ cycle, step: step.name, startedAt: new Date(stepStart).toISOString(), seconds: (Date.now() - stepStart) / 1000, error });
      writeFileSync(join(out, 'steps.csv'), stepsCsv(records));
      pruneBundles(bundlesDir, options.keepBundles);
    }
    // Judging starts after the first full cycle: every cache the campaign fills once is filled by then.
    if (cycle === 1) warmupOver = true;
    if (cycle === 1) log(`warm-up cycle done after ${((Date.now() - started) / 60_000).toFixed(1)} min; samples from now on are judged`);
  }
  sampling = false;
  await sampler;
  await sampleNow();

  const { verdicts, judged } = judge(samples);
  const failedSteps = records.filter((r) => r.error !== null);
  const caption = `soak: ${options.campaign} campaign, ${((Date.now() - started) / 3_600_000).toFixed(2)} h, ${records.length} steps (${failedSteps.length} failed) in ${Math.max(0, ...records.map((r) => r.cycle))} cycles, ${samples.length} samples every ${options.sampleSeconds} s`;
  const table = verdictTable(verdicts, judged, caption);
  const growth = (Object.keys(TREE_SERIES) as TreeSeries[]).flatMap((series) =>
    firstJudged && latest ? growthLines(series, topGrowth(TREE_SERIES[series](firstJudged), TREE_SERIES[series](latest))) : [],
  );
  writeFileSync(join(out, 'table.md'), `${markdownTable(table)}\n\n\`\`\`\n${growth.join('\n')}\n\`\`\`\n`);
  writeFileSync(join(out, 'verdicts.csv'), csvTable(table));
  process.stdout.write(`${caption}\n\n${textTable(table)}\n`);
  const grew = verdicts.filter((v) => v.verdict === 'GROWS' || v.verdict === 'too few samples');
  for (const v of grew) process.stdout.write(`soak: ${v.resource.id} ${v.verdict === 'GROWS' ? `grew from ${v.start} to ${v.end} ${v.resource.unit}` : `has ${v.n} judged samples`} (${v.resource.what})\n`);
  process.stdout.write(`\n${growth.join('\n')}\n\n`);
  for (const r of failedSteps) process.stdout.write(`soak: cycle ${r.cycle} ${r.step} failed: ${r.error}\n`);
  process.stdout.write(`series: ${join(out, 'series.csv')}\ntable: ${join(out, 'table.md')}\n`);
  process.exitCode = soakPassed(verdicts) && failedSteps.length === 0 ? 0 : 1;
}

await main();
