/**
 * `sandbench init [kind]`: a commented starter spec to edit, on stdout or into a file. Each kind
 * names its own starter (KindSpec.starter, a file in the kind's folder), so this command knows no
 * kind by name; a kind without one is refused with the kinds that have one.
 */
import type { Command } from 'commander';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../harness/errors.ts';
import type { SpecKinds } from '../../harness/spec/kind-spec.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

/** The kind a bare `sandbench init` starts: the quickest comparison, runnable on host and staged. */
export const DEFAULT_STARTER_KIND = 'shell-ready';

/** The starter spec text of `kind`, or a UserError naming the kinds that have one. */
export function starterSpec(kinds: SpecKinds, kind: string): string {
  const withStarter = kinds.names.filter((name) => kinds.spec(name)?.starter);
  if (!kinds.spec(kind)) throw new UserError(`init: "${kind}" is not a kind of this build (expected one of ${kinds.names.join(', ')})`);
  const starter = kinds.spec(kind)!.starter;
  if (!starter) {
    throw new UserError(`init: the ${kind} kind has no starter spec yet (kinds with one: ${withStarter.join(', ')}); copy one of experiments/specs/*.yaml with experiment: ${kind} instead`);
  }
  return readFileSync(join(PROJECT_ROOT, starter), 'utf8');
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('Write a commented starter spec for a kind (default shell-ready) to stdout or --out <file>; edit it, then sandbench run it')
    .argument('[kind]', `experiment kind (default ${DEFAULT_STARTER_KIND})`)
    .option('-o, --out <file>', 'write the spec to this file instead of stdout')
    .option('--force', 'overwrite --out when it exists')
    .action(async (kind: string | undefined, flags: { out?: string; force?: boolean }) => {
      const { SPEC_KINDS } = await import('../../experiments/registry.ts');
      const text = starterSpec(SPEC_KINDS, kind ?? DEFAULT_STARTER_KIND);
      if (!flags.out) {
        process.stdout.write(text);
        return;
      }
      if (existsSync(flags.out) && !flags.force) throw new UserError(`init: ${flags.out} exists; choose another --out or add --force to overwrite it`);
      writeFileSync(flags.out, text);
      process.stderr.write(`sandbench: wrote ${flags.out}; see what it runs with: sandbench plan ${flags.out}\n`);
    });
}
