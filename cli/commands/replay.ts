/**
 * `sandbench replay prepare|convert|generate`: continuation prefixes from agent-native trajectories.
 * Imports only the replay modules, so bin/sandbench-replay.mjs can start this command alone
 * (every prepare attempt is timed launch to exit).
 */
import { writeFile } from 'node:fs/promises';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { REPLAY_AGENTS, type ReplayAgent } from '../../experiments/replay/agents.ts';
import { preparePrefix, parseTrajectory, readTrajectory } from '../../experiments/replay/prepare-prefix.ts';
import { ReplayError } from '../../experiments/replay/replay-error.ts';
import { writeTrajectorySet } from '../../experiments/replay/trajectory-set.ts';
import { UserError } from '../../harness/errors.ts';

function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function nonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer');
  return Number(value);
}

const agentOption = () => new Option('--agent <agent>', 'native format of the trajectory').choices(REPLAY_AGENTS).makeOptionMandatory();

export function registerReplay(program: Command): void {
  const replay = program.command('replay').description('Continuation prefixes from agent-native trajectories, without executing any tool');

  replay
    .command('prepare')
    .description('parse a native trajectory, cut after the N-th complete tool batch, write the prefix and manifest.json')
    .addOption(agentOption())
    .requiredOption('--trajectory <file>', 'the native trajectory file')
    .requiredOption('--after-step <n>', 'complete tool batch ordinal to cut after', positiveInt)
    .requiredOption('--out <dir>', 'directory for manifest.json and prefix.canonical.json')
    .action(async (opts: { agent: ReplayAgent; trajectory: string; afterStep: number; out: string }) => {
      const result = await preparePrefix({ agent: opts.agent, trajectoryPath: opts.trajectory, afterStep: opts.afterStep, outDir: opts.out });
      process.stdout.write(`${JSON.stringify(result)}\n`);
    });

  replay
    .command('convert')
    .description('print the canonical history (sandbench.canonical-history/1) of a native trajectory')
    .addOption(agentOption())
    .requiredOption('--trajectory <file>', 'the native trajectory file')
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (opts: { agent: ReplayAgent; trajectory: string; out?: string }) => {
      const history = parseTrajectory(opts.agent, await readTrajectory(opts.trajectory));
      const text = `${JSON.stringify(history, null, 2)}\n`;
      if (!opts.out) return void process.stdout.write(text);
      try {
        await writeFile(opts.out, text);
      } catch (error) {
        throw new ReplayError('output_failed', `cannot write ${opts.out} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      }
    });

  replay
    .command('generate')
    .description('write seeded synthetic trajectories (fixture tasks) in every native format')
    .requiredOption('--out <dir>', 'output directory')
    .option('--count <n>', 'trajectories per agent', positiveInt, 20)
    .option('--seed <n>', 'seed for ids and timestamps', nonNegativeInt, 0)
    .addOption(new Option('--agent <agent...>', 'only these formats').choices(REPLAY_AGENTS))
    .action(async (opts: { out: string; count: number; seed: number; agent?: ReplayAgent[] }) => {
      const files = await writeTrajectorySet(opts.out, opts.agent ?? REPLAY_AGENTS, opts.count, opts.seed);
      process.stdout.write(`wrote ${files.length} trajectories to ${opts.out}\n`);
    });
}

/**
 * Entry used by bin/sandbench-replay.mjs: the same error contract as cli/main.ts (one line on
 * stderr, the error's exit code, never a stack trace for bad input) without loading other commands.
 */
export async function runReplayCli(argv: string[]): Promise<void> {
  const program = new Command('sandbench').exitOverride().showHelpAfterError('(run with --help for usage)');
  registerReplay(program);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) process.exitCode = error.exitCode === 0 ? 0 : 2;
    else if (error instanceof UserError) {
      process.stderr.write(`sandbench: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else {
      process.stderr.write(`sandbench: internal error: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}
