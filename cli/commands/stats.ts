import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { analyzeLongCsv, AnalysisInputError, formatLongCsvResult } from '../../harness/analyze/index.ts';
import { UserError } from '../../harness/errors.ts';
import { jsonDocument, statsJson } from '../../reports/json/index.ts';

interface StatsOptions {
  value: string;
  arm: string;
  block?: string;
  control?: string;
  out?: string;
  resamples: number;
  seedId?: string;
  where: [string, string][];
  unit?: string;
  json?: boolean;
}

function positiveInteger(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function whereClause(raw: string, previous: [string, string][]): [string, string][] {
  const at = raw.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('expected COLUMN=VALUE');
  return [...previous, [raw.slice(0, at), raw.slice(at + 1)]];
}

export function registerStats(program: Command): void {
  program
    .command('stats')
    .description('Summaries and bootstrap comparisons of any long-format CSV (one row per measurement), e.g. timings measured elsewhere')
    .argument('<samples.csv>', 'long-format CSV with a header row')
    .requiredOption('--value <column>', 'column holding the measured value')
    .requiredOption('--arm <column>', 'column naming the arm (executor/variant)')
    .option('--block <column>', 'column naming the block/round: pairs candidate and control values for a paired-round bootstrap')
    .option('--control <arm>', 'control arm (default: the first arm in the file)')
    .option('--out <dir>', 'where to write summary.csv and comparisons.csv (default: <csv name>-stats/ next to the CSV)')
    // 5,000: the published study's count; well above the ~1,000 Efron & Tibshirani (1993, §19.3) ask of percentile intervals.
    .option('--resamples <n>', 'bootstrap resamples per comparison', positiveInteger, 5000)
    .option('--seed-id <id>', 'seed id; each comparison seeds from <id>:<value column>:<candidate> (default: the CSV file name)')
    .option('--where <column=value>', 'keep only rows where column equals value (repeatable), e.g. --where metric=completion_ms', whereClause, [])
    .option('--unit <unit>', 'unit of the value column (default: from its name, e.g. *_ms → ms)')
    .option('--json', 'print the result as one JSON document on stdout (StatsJsonSchema: the summary and comparison CSV cells, with the Holm family); the tables go to stderr')
    .action((file: string, options: StatsOptions) => {
      if (!existsSync(file)) throw new UserError(`${file}: no such file`);
      const name = basename(file);
      let result;
      try {
        result = analyzeLongCsv(readFileSync(file, 'utf8'), {
          source: name,
          value: options.value,
          arm: options.arm,
          block: options.block,
          control: options.control,
          where: options.where,
          unit: options.unit,
          resamples: options.resamples,
          seedId: options.seedId ?? name,
        });
      } catch (error) {
        if (error instanceof AnalysisInputError) throw new UserError(error.message);
        throw error;
      }
      const out = options.out ?? join(dirname(file), `${basename(file, extname(file))}-stats`);
      mkdirSync(out, { recursive: true });
      for (const [fileName, content] of result.files) writeFileSync(join(out, fileName), content);
      const written = [...result.files.keys()].map((f) => join(out, f));
      (options.json ? process.stderr : process.stdout).write(`${formatLongCsvResult(result)}\nwrote ${written.join(', ')}\n`);
      if (options.json) process.stdout.write(jsonDocument(statsJson(result, { source: name, value: options.value }, written)));
    });
}
