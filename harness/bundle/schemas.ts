/**
 * One zod schema per bundle file a reader parses. Lenient on purpose (loose objects, optional
 * fields with the defaults older bundles imply): a reader must accept every bundle sandbench ever
 * wrote, while the writer's types (harness/spec/resolve-spec.ts, harness/plan) stay strict.
 */
import { z } from 'zod';
import type { ResolvedSpec } from '../spec/resolve-spec.ts';
import { UserError } from '../errors.ts';
import { num, type CsvTable } from './csv.ts';

export type { ResolvedSpec } from '../spec/resolve-spec.ts';

/** Bad bundle input (missing file, malformed JSON, a comparison naming an unknown arm): exit 2, or 3 for damaged data. */
export class BundleInputError extends UserError {
  constructor(message: string, exitCode = 2) {
    super(message, exitCode);
    this.name = 'BundleInputError';
  }
}

/**
 * resolved-spec.json. The spec inside is already the parsed form (durations in ms, sizes in MiB), so
 * it is not re-parsed with SpecSchema (that would read a number of ms as seconds); only the fields
 * readers rely on are checked, with the defaults the run applied.
 */
export const ResolvedSpecSchema = z
  .object({
    run_id: z.string().min(1),
    spec_path: z.string().default(''),
    spec_sha256: z.string().default(''),
    overrides: z.record(z.string(), z.unknown()).default({}),
    skipped_arms: z.array(z.object({ arm: z.string(), reason: z.string() }).loose()).default([]),
    /** Arm labels the plan actually schedules (differs from spec.arms for kinds whose arms are subjects, e.g. replay). */
    plan_arms: z.array(z.string()).optional(),
    spec: z
      .object({
        name: z.string().min(1),
        description: z.string().optional(),
        experiment: z.string().min(1),
        arms: z.array(z.object({ backend: z.string(), variant: z.string().nullish() }).loose()).min(1),
        warmups: z.number().int().nonnegative(),
        trials: z.number().int().positive(),
        seed: z.number().int(),
        timeout: z.number().optional(),
        resamples: z.number().int().positive().default(5000),
        underpowered_fraction: z.number().positive().default(0.5),
        controls: z.object({ cpus: z.string().optional(), memory: z.number().optional(), swap: z.number().default(0) }).loose().default({ swap: 0 }),
        compare: z.array(z.object({ candidate: z.string(), control: z.string(), metric: z.string() })).optional(),
      })
      .loose(),
  })
  .loose();

function firstIssue(file: string, error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`;
}

export function parseResolvedSpec(json: unknown, file = 'resolved-spec.json'): ResolvedSpec {
  const parsed = ResolvedSpecSchema.safeParse(json);
  if (!parsed.success) throw new BundleInputError(firstIssue(file, parsed.error));
  // The writer's type: every field analysis reads is checked above; the rest passes through as written.
  return parsed.data as unknown as ResolvedSpec;
}

/** plan.json: the schedule (readers need trial ids, blocks, positions, warmup flags and arms). */
export const PlanSchema = z
  .object({
    /** Formal and warm-up block counts as the kind planned them (a kind may repeat with a field of its own). */
    blocks: z.number().int().nonnegative().optional(),
    warmup_blocks: z.number().int().nonnegative().optional(),
    trials: z.array(
      z
        .object({
          trial_id: z.string(),
          block: z.number().int().nonnegative(),
          position: z.number().int().nonnegative(),
          warmup: z.boolean(),
          arm: z.object({ backend: z.string(), variant: z.string().nullable() }).loose().optional(),
        })
        .loose(),
    ),
  })
  .loose();
export type BundlePlan = z.infer<typeof PlanSchema>;

export function parsePlan(json: unknown, file = 'plan.json'): BundlePlan {
  const parsed = PlanSchema.safeParse(json);
  if (!parsed.success) throw new BundleInputError(firstIssue(file, parsed.error));
  return parsed.data;
}

/** environment.json and manifest.json: owned by harness/provenance; readers look facts up defensively. */
export const JsonObjectSchema = z.record(z.string(), z.unknown());

const cellText = z.string().default('');
const cellNumber = z.string().optional().transform((v) => num(v));

/** summary.csv (public contract header), typed for readers; numbers are null when the cell is empty. */
export const SummaryRowSchema = z.object({
  benchmark_id: cellText, batch: cellText, mode: cellText, backend: cellText, metric: cellText, unit: cellText,
  planned: cellNumber, failed: cellNumber, capability: cellText, n: cellNumber, p50: cellNumber, p95_reference: cellNumber,
  minimum: cellNumber, maximum: cellNumber, distribution: cellText, low_n: cellNumber, low_p50: cellNumber, high_n: cellNumber, high_p50: cellNumber,
});
export type SummaryCsvRow = z.infer<typeof SummaryRowSchema>;

/** comparisons.csv (public contract header), typed for readers. */
export const ComparisonRowSchema = z.object({
  batch: cellText, benchmark_id: cellText, mode: cellText, candidate: cellText, control: cellText, metric: cellText, unit: cellText,
  n: cellNumber, difference_ms: cellNumber, ci95_low_ms: cellNumber, ci95_high_ms: cellNumber, conclusion: cellText,
  confidence_method: cellText, ratio: cellNumber, ratio_ci95_low: cellNumber, ratio_ci95_high: cellNumber,
});
export type ComparisonCsvRow = z.infer<typeof ComparisonRowSchema>;

/** evidence.csv (pVisor's scenario-evidence header); `value` stays text (a state such as `valid` is a value too). */
export const EvidenceRowSchema = z.object({
  scenario: cellText, topic: cellText, source: cellText, cohort: cellText, variant: cellText, metric: cellText, statistic: cellText,
  n: cellNumber, value: cellText, unit: cellText, condition: cellText, limitations: cellText,
});
export type EvidenceCsvRow = z.infer<typeof EvidenceRowSchema>;

/** Typed rows of a parsed CSV; a row that does not fit names the file and the line. */
export function typedRows<S extends z.ZodType>(file: string, table: CsvTable, schema: S): z.infer<S>[] {
  return table.rows.map((row, index) => {
    const parsed = schema.safeParse(row);
    if (!parsed.success) throw new BundleInputError(`${file}: line ${index + 2}: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`, 3);
    return parsed.data;
  });
}
