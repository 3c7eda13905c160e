/**
 * The `sandbench` command line. Each subcommand lives in cli/commands/<name>.ts and
 * registers itself here; a UserError becomes a one-line message and its exit code, never a stack trace.
 */
import { Command, CommanderError } from 'commander';
import { UserError } from '../harness/errors.ts';
import { PROJECT_ROOT } from '../harness/state-dir.ts';
import { registrarsFor } from './commands/index.ts';
import { readVersionInfo, versionLine } from './version.ts';

export async function buildProgram(argv: string[]): Promise<Command> {
  const program = new Command('sandbench')
    .description('Randomized, interleaved benchmarks of sandbox executors, with evidence CSVs and verifiable bundles')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // git is asked only when the version is what was asked for: every other start stays as fast as before.
  const wantsVersion = argv.slice(2).some((arg) => arg === '-V' || arg === '--version');
  program.version(wantsVersion ? versionLine(readVersionInfo(PROJECT_ROOT)) : '', '-V, --version', 'print the version and the git commit');
  for (const register of await registrarsFor(argv)) register(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  // `sandbench ... | head` closes stdout early: that is the reader's choice, not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
  } catch (error) {
    process.exitCode = exitCodeFor(error);
  }
}

function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    // help and version exit 0; usage errors are bad input (2)
    return error.exitCode === 0 ? 0 : 2;
  }
  if (error instanceof UserError) {
    process.stderr.write(`sandbench: ${error.message}\n`);
    return error.exitCode;
  }
  process.stderr.write(`sandbench: internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  return 1;
}
