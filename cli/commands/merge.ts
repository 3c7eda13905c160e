import type { Command } from 'commander';
import { mergeShards } from '../../harness/fleet/merge-shards.ts';
import { reportRenderer } from '../wiring.ts';
import { kindCatalog } from '../kinds.ts';

export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description('Merge the shard bundles of one plan (sandbench run --shard i/N) into one bundle analysed with host as a block; refuses (exit 3) shards of different plans')
    .argument('<bundles...>', 'every shard bundle of the campaign')
    .requiredOption('--out <dir>', 'the merged bundle directory (new or empty)')
    .action(async (bundles: string[], flags: { out: string }) => {
      const result = await mergeShards(bundles, flags.out, { kinds: await kindCatalog(), renderReport: await reportRenderer() }, (message) => process.stderr.write(`sandbench: ${message}\n`));
      process.stdout.write(`merged ${bundles.length} shards, ${result.trials} trials on ${result.hosts.length} host(s) (${result.hosts.join(', ')})\nbundle: ${result.bundleDir}\n`);
    });
}
