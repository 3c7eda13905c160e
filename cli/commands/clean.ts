import type { Command } from 'commander';
import { findLeftovers, removeLeftovers } from '../../harness/clean/find-leftovers.ts';
import { stateDir } from '../../harness/state-dir.ts';
import { UserError } from '../../harness/errors.ts';
import { leftoverSources } from '../wiring.ts';

interface CleanOptions {
  dryRun?: boolean;
  run?: string;
}

export function registerClean(program: Command): void {
  program
    .command('clean')
    .description('Find and remove what crashed runs left behind (processes, VMs, containers, mounts, cgroups, dockerd, temp dirs), by sandbench names/labels only; live runs are never touched')
    .option('--dry-run', 'print one line per leftover (kind id run_id) and remove nothing; prints nothing when there is none')
    .option('--run <run-id>', 'only the leftovers of this run id')
    .action(async (options: CleanOptions) => {
      if (options.run !== undefined && !/^[A-Za-z0-9_.-]+$/.test(options.run)) {
        throw new UserError(`--run ${JSON.stringify(options.run)}: a run id has only letters, digits, '.', '_' and '-' (see resolved-spec.json run_id)`);
      }
      const leftovers = await findLeftovers({ stateDir: stateDir(), runId: options.run, sources: await leftoverSources() });
      if (options.dryRun) {
        for (const leftover of leftovers) process.stdout.write(`${leftover.kind} ${leftover.id} ${leftover.runId}\n`);
        return;
      }
      const result = await removeLeftovers(leftovers);
      for (const leftover of result.removed) process.stdout.write(`removed ${leftover.kind} ${leftover.id} ${leftover.runId}\n`);
      for (const failure of result.failed) process.stderr.write(`sandbench: could not remove ${failure.leftover.kind} ${failure.leftover.id} (run ${failure.leftover.runId}): ${failure.error}\n`);
      if (result.failed.length > 0) process.exitCode = 1;
    });
}
