import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { BUNDLE_FILES } from '../../harness/bundle/layout.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { DEFAULT_PUBLISHED, mappingPathFor, readMapping, readPublished } from '../../reports/reproduce/published.ts';
import { reproduce } from '../../reports/reproduce/reproduce.ts';
import { reproductionText, writeReproduction } from '../../reports/reproduce/reproduce-output.ts';
import { UserError } from '../../harness/errors.ts';
import { analyzedBundle, specCatalog } from '../kinds.ts';
import { jsonDocument, reproduceJson } from '../../reports/json/index.ts';
import { DEFAULT_CAMPAIGN_LIST, readCampaignList, type CampaignList, type CampaignModeName } from '../../harness/campaign/campaign-list.ts';
import { readCampaignState } from '../../harness/campaign/campaign-state.ts';
import { joinCampaign } from '../../reports/reproduce/campaign-join.ts';
import { campaignJson, campaignText, writeCampaignOutputs } from '../../reports/reproduce/campaign-output.ts';
import { campaignSources } from '../campaign/campaign-sources.ts';

export function registerReproduce(program: Command): void {
  program
    .command('reproduce')
    .description('Side by side with the published pVisor study: published value, ours with CI, ratios between backends, whether each published ordering holds; lists unmatched rows with why. --campaign runs every spec with published counterparts and joins them all')
    .argument('[bundle]', 'bundle directory (runs/<run-id>); not with --campaign')
    .option('--published <csv>', 'published figures (topic,source_file,batch_date,backend,statistic,n,value,unit,limits)', DEFAULT_PUBLISHED)
    .option('--mapping <json>', 'join mapping (default: <published>-mapping.json)')
    .option('--out <dir>', 'where to write reproduction.csv, reproduction-orderings.csv and reproduction.md (default: the bundle)')
    .option('--campaign <dir>', 'run the campaign list into <dir> (one bundle per entry; re-running resumes, skipping finished bundles), then join every bundle: campaign-summary.csv, campaign-orderings.csv, report.md')
    .option('--quick', 'with --campaign: the reduced-N campaign (each entry\'s quick: overrides; about 15 min here)')
    .option('--list <yaml>', 'with --campaign: the campaign list', DEFAULT_CAMPAIGN_LIST)
    .option('--no-run', 'with --campaign: join the bundles already in <dir> without running anything')
    .option('--adopt <entry=bundle>', 'with --campaign: copy a finished bundle run elsewhere into <dir> as this entry\'s bundle (refused unless complete, intact as `verify` checks, and its resolved spec is what the entry runs in this mode); repeatable', (value: string, previous: string[] = []) => [...previous, value])
    .option('--json', 'print the result as one JSON document on stdout (a bundle: ReproduceJsonSchema, the reproduction CSV cells; --campaign: the joined campaign); tables and progress go to stderr')
    .action(async (bundleDir: string | undefined, options: ReproduceFlags) => {
      if (options.campaign) {
        if (bundleDir) throw new UserError(`reproduce: give either a bundle or --campaign <dir>, not both (got ${bundleDir})`);
        await reproduceCampaign(options.campaign, options);
        return;
      }
      if (!bundleDir) throw new UserError('reproduce: give a bundle directory (runs/<run-id>) or --campaign <dir>');
      if (options.quick) throw new UserError('reproduce: --quick needs --campaign <dir>');
      if (options.adopt) throw new UserError('reproduce: --adopt needs --campaign <dir>');
      // Reproduce renders the bundle's analysis; a copied bundle without its CSVs gets them written first.
      const missing = existsSync(join(bundleDir, BUNDLE_FILES.resolvedSpec)) && !existsSync(join(bundleDir, BUNDLE_FILES.evidence));
      const bundle = await analyzedBundle(bundleDir, { write: missing });
      if (missing) process.stderr.write(`${bundleDir}: evidence.csv was missing; analysed the journal first\n`);
      const published = readPublished(options.published);
      const mapping = readMapping(options.mapping ?? mappingPathFor(options.published));
      const result = reproduce(bundle, published, mapping);
      const human = options.json ? process.stderr : process.stdout;
      human.write(reproductionText(result));
      const files = writeReproduction(result, options.out ?? bundleDir, shownPath(options.published));
      human.write(`wrote ${files.join(', ')}\n`);
      if (options.json) process.stdout.write(jsonDocument(reproduceJson(result, files)));
    });
}

interface ReproduceFlags {
  published: string;
  mapping?: string;
  out?: string;
  campaign?: string;
  quick?: boolean;
  list: string;
  run: boolean;
  adopt?: string[];
  json?: boolean;
}

const shownPath = (path: string) => (relative(PROJECT_ROOT, path).startsWith('..') ? path : relative(PROJECT_ROOT, path));

async function reproduceCampaign(dir: string, options: ReproduceFlags): Promise<void> {
  if (options.out) throw new UserError('reproduce --campaign: the outputs go to the campaign directory; drop --out');
  const campaignDir = resolve(dir);
  const mode: CampaignModeName = options.quick ? 'quick' : 'full';
  const list = readCampaignList(options.list);
  // Read the published side first: a bad --published must fail before an hour of runs.
  const published = readPublished(options.published);
  const mapping = readMapping(options.mapping ?? mappingPathFor(options.published));
  const log = (message: string) => process.stderr.write(`sandbench: ${message}\n`);
  if (options.adopt) await adopt(options.adopt, { campaignDir, list, mode, log });
  let wallSeconds: number | null = null;
  let interrupted = false;
  if (options.run) {
    const { runCampaign } = await import('../campaign/run-campaign.ts');
    const result = await runCampaign({ campaignDir, list, mode, log });
    wallSeconds = result.wallSeconds;
    interrupted = result.interrupted;
  } else if (!existsSync(campaignDir)) {
    throw new UserError(`--campaign ${dir}: no such directory (--no-run joins a campaign directory that exists)`);
  }
  const state = readCampaignState(campaignDir);
  if (state && state.mode !== mode) throw new UserError(`--campaign ${dir}: this directory holds a ${state.mode} campaign; ${state.mode === 'quick' ? 'add' : 'drop'} --quick`);
  const sources = await campaignSources(campaignDir, list, mode, state);
  const joined = joinCampaign(sources, published, mapping);
  const files = writeCampaignOutputs(joined, campaignDir, { mode, publishedPath: shownPath(options.published), wallSeconds });
  const human = options.json ? process.stderr : process.stdout;
  human.write(campaignText(joined));
  human.write(`wrote ${files.join(', ')}\n`);
  if (wallSeconds !== null) human.write(`campaign wall time: ${Math.round(wallSeconds)} s\n`);
  if (options.json) process.stdout.write(`${JSON.stringify(campaignJson(joined, { campaignDir, mode, wallSeconds }), null, 2)}\n`);
  if (interrupted) process.exitCode = 130;
}

/** --adopt: checked with `run`'s own spec resolution and the kinds' plans, then copied (adopt-bundle.ts). */
async function adopt(flags: string[], context: { campaignDir: string; list: CampaignList; mode: CampaignModeName; log: (m: string) => void }): Promise<void> {
  const [{ adoptBundles, parseAdoptFlag }, { specKinds, planArms }] = await Promise.all([import('../../harness/campaign/adopt-bundle.ts'), specCatalog()]);
  const adopted = adoptBundles(flags.map(parseAdoptFlag), { ...context, kinds: specKinds, planArms });
  for (const a of adopted) context.log(`campaign: ${a.entry}: adopted ${a.adoption.source} (run ${a.adoption.run_id}, harness ${a.adoption.harness_commit?.slice(0, 12) ?? 'unknown'}${a.adoption.harness_dirty ? ', dirty' : ''}) as ${join(context.campaignDir, a.entry)}`);
}
