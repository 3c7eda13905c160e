import type { Command } from 'commander';
import { BUILTIN_CATALOG } from '../../executors/registry.ts';
import { UserError } from '../../harness/errors.ts';
import { positiveInt } from '../parse-options.ts';
import { runWiring } from '../wiring.ts';

interface CapacityFlags {
  backend: string;
  from?: number;
  to?: number;
  batches?: number;
  workload?: string;
  out?: string;
}

/** `backend` or `backend:variant`, the backend one this build knows. */
function parseArm(value: string): { backend: string; variant: string | null } {
  const [backend, variant] = value.split(':', 2) as [string, string | undefined];
  if (!BUILTIN_CATALOG.get(backend)) throw new UserError(`--backend ${value}: expected one of ${BUILTIN_CATALOG.names.join(', ')} (optionally backend:variant)`);
  return { backend, variant: variant || null };
}

export function registerCapacity(program: Command): void {
  program
    .command('capacity')
    .description('Bisect the largest N at which every batch of a density spec passes on one backend; prints the bracket and the batches that decided it')
    .argument('<spec>', 'density spec (YAML), e.g. experiments/specs/density.yaml')
    .requiredOption('--backend <backend>', 'the backend (or backend:variant) to size')
    .option('--from <n>', 'smallest N to try (default density.capacity_search.min, else 1)', positiveInt('--from'))
    .option('--to <n>', 'largest N to try (default density.capacity_search.max, else the largest listed concurrency)', positiveInt('--to'))
    .option('--batches <n>', 'fresh batches a probe must pass (default the spec\'s density.batches)', positiveInt('--batches'))
    .option('--workload <name>', 'useful or idle (default the spec\'s first workload)')
    .option('--out <dir>', 'output directory: journal.jsonl of every batch and capacity.json (default runs/<run-id>)')
    .action(async (specPath: string, flags: CapacityFlags) => {
      if (flags.workload !== undefined && !['useful', 'idle'].includes(flags.workload)) throw new UserError(`--workload ${flags.workload}: expected useful or idle`);
      const arm = parseArm(flags.backend);
      const log = (message: string) => process.stderr.write(`sandbench: ${message}\n`);
      const [{ runCapacity, formatCapacity }, wiring] = await Promise.all([import('../../experiments/density/capacity-run.ts'), runWiring()]);
      const { dir, report } = await runCapacity({
        specPath,
        arm,
        workload: flags.workload as 'useful' | 'idle' | undefined,
        from: flags.from,
        to: flags.to,
        batches: flags.batches,
        out: flags.out,
        createExecutor: wiring.createExecutor,
        specKinds: wiring.specKinds,
        log,
      });
      process.stdout.write(`${formatCapacity(report)}\noutput: ${dir}\n`);
      if (report.interrupted) process.exitCode = 130;
    });
}
