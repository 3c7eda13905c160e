/**
 * The published side of `reproduce`: the study's figures (data/published/pvisor-2026-10.csv) and the
 * join mapping (data/published/pvisor-2026-10-mapping.json). Both ship with the project; nothing
 * outside the project is read at run time.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../../harness/errors.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { num, parseCsv } from '../../harness/bundle/csv.ts';

export const DEFAULT_PUBLISHED = join(PROJECT_ROOT, 'data/published/pvisor-2026-10.csv');
const PUBLISHED_HEADER = ['topic', 'source_file', 'batch_date', 'backend', 'statistic', 'n', 'value', 'unit', 'limits'];

export interface PublishedRow {
  /** 1-based data row number in the CSV (for messages). */
  row: number;
  topic: string;
  sourceFile: string;
  batchDate: string;
  backend: string;
  statistic: string;
  n: number | null;
  value: number | null;
  unit: string;
  limits: string;
}

const ArmTarget = z.union([z.string(), z.array(z.string()).min(1), z.object({ candidate: z.string(), control: z.string() }).strict()]);

export const MappingSchema = z.object({
  $comment: z.string().optional(),
  published: z.string().optional(),
  topics: z.record(
    z.string(),
    z.object({ experiment: z.string().optional(), workload: z.string().optional(), reference: z.array(z.string()).optional(), unsupported: z.string().optional() }).strict(),
  ),
  backends: z.record(z.string(), ArmTarget),
  unsupported_backends: z.record(z.string(), z.string()).default({}),
  statistics: z.record(z.string(), z.object({ metric: z.string(), statistic: z.string() }).strict()),
  unsupported_statistics: z.record(z.string(), z.string()).default({}),
  orderings: z
    .array(
      z
        .object({ id: z.string(), topic: z.string(), metric: z.string(), faster: z.string(), slower: z.string(), min_ratio: z.number().positive().optional(), claim: z.string() })
        .strict(),
    )
    .default([]),
  capacity_cells: z.object({ topics: z.array(z.string()), statistic: z.string() }).strict().optional(),
});
export type Mapping = z.infer<typeof MappingSchema>;
export type ArmTargetValue = z.infer<typeof ArmTarget>;

export function readPublished(path: string): PublishedRow[] {
  if (!existsSync(path)) throw new UserError(`${path}: published figures not found; pass --published <csv> with the header ${PUBLISHED_HEADER.join(',')}`);
  const table = parseCsv(path, readFileSync(path, 'utf8'));
  const missing = PUBLISHED_HEADER.filter((h) => !table.header.includes(h));
  if (missing.length > 0) throw new UserError(`${path}: missing column(s) ${missing.join(', ')}; expected the header ${PUBLISHED_HEADER.join(',')}`);
  return table.rows.map((r, i) => ({
    row: i + 1,
    topic: r.topic ?? '',
    sourceFile: r.source_file ?? '',
    batchDate: r.batch_date ?? '',
    backend: r.backend ?? '',
    statistic: r.statistic ?? '',
    n: num(r.n),
    value: num(r.value),
    unit: r.unit ?? '',
    limits: r.limits ?? '',
  }));
}

/** The mapping next to the published CSV: `<name>-mapping.json`. */
export function mappingPathFor(publishedPath: string): string {
  const base = publishedPath.replace(/\.csv$/i, '');
  return `${base}-mapping.json`;
}

export function readMapping(path: string): Mapping {
  if (!existsSync(path)) throw new UserError(`${path}: join mapping not found (expected next to the published CSV in ${dirname(path)})`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = MappingSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(`${path}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  return parsed.data;
}

/** Concurrency N of a density row, from its limits text ("...; concurrency 16; ..."). */
export function concurrencyOf(text: string): number | null {
  const m = /concurrency (\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}
