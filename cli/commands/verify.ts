import type { Command } from 'commander';
import { verifyBundle } from '../../harness/provenance/manifest.ts';
import { checkBundleSignatures } from '../../harness/provenance/signature.ts';
import { UserError } from '../../harness/errors.ts';

export function registerVerify(program: Command): void {
  program
    .command('verify')
    .description('Re-hash every file of a bundle against manifest.json, and with --signer check its signatures; exit 0 when intact, 1 naming each changed file or failed signature')
    .argument('<bundle>', 'bundle directory')
    .option('--signer <allowed-signers>', 'also require manifest.json.sig (and every part\'s, shards/<i>/) to be a valid sandbench-bundle signature by a key in this OpenSSH allowed signers file')
    .action(async (bundle: string, flags: { signer?: string }) => {
      let problems;
      try {
        problems = verifyBundle(bundle);
      } catch (error) {
        throw new UserError(`${bundle}: ${error instanceof Error ? error.message : error}`);
      }
      for (const problem of problems) process.stdout.write(`${bundle}: ${problem.file}: ${problem.problem}\n`);
      // The signature covers the manifest; the hashes above cover every other file. Both must hold.
      const signatures = flags.signer ? await checkBundleSignatures(bundle, flags.signer) : [];
      for (const check of signatures) {
        process.stdout.write(check.ok ? `${bundle}: ${check.signature}: good signature by ${check.principals.join(', ')}\n` : `${bundle}: ${check.signature}: bad signature: ${check.problem}\n`);
      }
      if (problems.length > 0 || signatures.some((check) => !check.ok)) {
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`${bundle}: intact${flags.signer ? `, signed` : ''}\n`);
    });
}
