import type { Command } from 'commander';
import { analyzedBundle } from '../kinds.ts';
import { powerPlan, powerText } from '../../reports/gate/power-plan.ts';
import { parseThreshold } from '../../reports/gate/threshold.ts';
import { GATE_STATISTICS, type GateStatistic } from '../../harness/stats/index.ts';
import { UserError } from '../../harness/errors.ts';

interface PowerCliOptions {
  effect: string;
  power: string;
  metric?: string[];
  statistic?: string;
}

export function registerPower(program: Command): void {
  program
    .command('power')
    .description('Blocks per run needed to detect an effect (or pass a non-inferiority gate at it), per arm and metric, from a pilot bundle; the formula the gate uses for "≈N more blocks"')
    .argument('<pilot-bundle>', 'a finished run of the benchmark you plan')
    .requiredOption('--effect <pct>', 'the slowdown to detect, e.g. 5%')
    .option('--power <p>', 'wanted probability of a decision, between 0 and 1', '0.8')
    .option('--metric <name>', 'metric (repeatable; default: the spec compare metrics, else the timing metrics)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--statistic <stat>', 'p50 (default), p90 or p95')
    .action(async (dir: string, options: PowerCliOptions) => {
      const effect = parseThreshold(options.effect, '--effect');
      const power = Number(options.power);
      if (!(power > 0 && power < 1)) throw new UserError(`--power "${options.power}": expected a probability between 0 and 1, e.g. 0.8`);
      if (options.statistic !== undefined && !(GATE_STATISTICS as readonly string[]).includes(options.statistic)) throw new UserError(`--statistic "${options.statistic}": expected one of ${GATE_STATISTICS.join(', ')}`);
      const plan = powerPlan(await analyzedBundle(dir), { effect, power, metrics: options.metric, statistic: options.statistic as GateStatistic | undefined });
      process.stdout.write(powerText(plan));
    });
}
