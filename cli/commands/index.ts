import { Option, type Command } from 'commander';
import { COMMAND_SUMMARIES } from './summaries.ts';

type Registrar = (program: Command) => void;

/**
 * Subcommand name → loader of its module. Only the invoked command's module is imported, so
 * `sandbench verify` does not pay for loading vega or every executor (start-up time is part of
 * what users feel, and of the replay preparer's measured time). Add one line per command.
 */
export const COMMAND_LOADERS: Record<string, () => Promise<Registrar>> = {
  doctor: async () => (await import('./doctor.ts')).registerDoctor,
  init: async () => (await import('./init.ts')).registerInit,
  schema: async () => (await import('./schema.ts')).registerSchema,
  plan: async () => (await import('./plan.ts')).registerPlan,
  run: async () => (await import('./run.ts')).registerRun,
  verify: async () => (await import('./verify.ts')).registerVerify,
  sign: async () => (await import('./sign.ts')).registerSign,
  images: async () => (await import('./images.ts')).registerImages,
  report: async () => (await import('./report.ts')).registerReport,
  compare: async () => (await import('./compare.ts')).registerCompare,
  gate: async () => (await import('./gate.ts')).registerGate,
  power: async () => (await import('./power.ts')).registerPower,
  reproduce: async () => (await import('./reproduce.ts')).registerReproduce,
  analyze: async () => (await import('./analyze.ts')).registerAnalyze,
  stats: async () => (await import('./stats.ts')).registerStats,
  replay: async () => (await import('./replay.ts')).registerReplay,
  clean: async () => (await import('./clean.ts')).registerClean,
  fleet: async () => (await import('./fleet.ts')).registerFleet,
  merge: async () => (await import('./merge.ts')).registerMerge,
  model: async () => (await import('./model.ts')).registerModel,
  serve: async () => (await import('./serve.ts')).registerServe,
  capacity: async () => (await import('./capacity.ts')).registerCapacity,
  conformance: async () => (await import('./conformance.ts')).registerConformance,
};

/**
 * Top-level help and unknown commands: a light stand-in per command from COMMAND_SUMMARIES (same
 * name, arguments and description), so `sandbench --help` loads no command module.
 */
function summaryRegistrar(name: string): Registrar {
  const summary = COMMAND_SUMMARIES[name]!;
  return (program) => {
    const command = program.command(name).description(summary.description);
    if (summary.args) command.arguments(summary.args);
    // commander prints " [options]" for a command that has any option.
    if (summary.options) command.addOption(new Option('--placeholder').hideHelp());
  };
}

/** The registrars needed to parse `argv`: the named command's only (also for `help <command>`), or the light stand-ins. */
export async function registrarsFor(argv: string[]): Promise<Registrar[]> {
  const name = argv[2] === 'help' ? argv[3] : argv[2];
  const loader = name ? COMMAND_LOADERS[name] : undefined;
  if (loader) return [await loader()];
  return Object.keys(COMMAND_LOADERS).map(summaryRegistrar);
}
