import type { Command } from 'commander';
import { verifyBundle } from '../../harness/provenance/manifest.ts';
import { signManifest } from '../../harness/provenance/signature.ts';
import { UserError } from '../../harness/errors.ts';

export function registerSign(program: Command): void {
  program
    .command('sign')
    .description('Sign a bundle\'s manifest.json with an SSH key (ssh-keygen -Y sign, namespace sandbench-bundle) into manifest.json.sig; `verify --signer` checks it')
    .argument('<bundle>', 'bundle directory')
    .requiredOption('--key <file>', 'SSH private key (its public half goes in the verifier\'s allowed signers file)')
    .action(async (bundle: string, flags: { key: string }) => {
      let problems;
      try {
        problems = verifyBundle(bundle);
      } catch (error) {
        throw new UserError(`${bundle}: ${error instanceof Error ? error.message : error}`);
      }
      // A signature vouches for the manifest; a manifest its files no longer match would vouch for bytes nobody has.
      if (problems.length > 0) throw new UserError(`${bundle}: does not verify (${problems.map((p) => `${p.file}: ${p.problem}`).join('; ')}); sign only an intact bundle`);
      const signature = await signManifest(bundle, flags.key);
      process.stdout.write(`${bundle}: signed: ${signature}\n`);
    });
}
