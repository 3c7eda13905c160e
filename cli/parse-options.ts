/** Strict parsers for CLI option values: bad input is a UserError naming the option and the fix. */
import type { Command } from 'commander';
import { UserError } from '../harness/errors.ts';

export function positiveInt(option: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) <= 0) throw new UserError(`${option} ${value}: expected a positive whole number`);
    return Number(value);
  };
}

export function nonNegativeInt(option: string) {
  return (value: string): number => {
    if (!/^\d+$/.test(value)) throw new UserError(`${option} ${value}: expected a whole number ≥ 0`);
    return Number(value);
  };
}

export function commaList(option: string) {
  return (value: string): string[] => {
    const items = value.split(',').map((item) => item.trim()).filter(Boolean);
    if (items.length === 0) throw new UserError(`${option}: expected a comma-separated list, e.g. host,staged`);
    return items;
  };
}

export function intList(option: string) {
  return (value: string): number[] => commaList(option)(value).map((item) => positiveInt(option)(item));
}

/** The spec overrides `run` and `plan` share, so both accept and validate them the same way. */
export function withSpecOverrideOptions(command: Command): Command {
  return command
    .option('--arms <list>', 'only these arms (backend or backend:variant), comma-separated', commaList('--arms'))
    .option('--trials <n>', 'formal trials (blocks) per arm', positiveInt('--trials'))
    .option('--warmups <n>', 'warmup blocks per arm (kept in the journal, excluded from statistics)', nonNegativeInt('--warmups'))
    .option('--seed <n>', 'seed of the schedule and of every bootstrap', nonNegativeInt('--seed'))
    .option('--concurrency <list>', 'density, rollout: concurrency levels, e.g. 8,16 (rollout: replaces rollout.concurrency and every concurrency_by_backend list)', intList('--concurrency'))
    .option('--batches <n>', 'density: fresh batches per cell', positiveInt('--batches'));
}
