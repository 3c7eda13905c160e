import type { Command } from 'commander';
import { verifyBundle } from '../../harness/provenance/manifest.ts';
import { UserError } from '../../harness/errors.ts';

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description('Re-hash every file of a bundle against manifest.json; exit 0 when intact, 1 naming each changed file')
    .argument('<bundle>', 'bundle directory')
    .action((bundle: string) => {
      let problems;
      try {
        problems = verifyBundle(bundle);
      } catch (error) {
        throw new UserError(`${bundle}: ${error instanceof Error ? error.message : error}`);
      }
      if (problems.length === 0) {
        process.stdout.write(`${bundle}: intact\n`);
        return;
      }
      for (const problem of problems) process.stdout.write(`${bundle}: ${problem.file}: ${problem.problem}\n`);
      process.exitCode = 1;
    });
}
