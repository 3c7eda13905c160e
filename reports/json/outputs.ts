/**
 * The `--json` documents of compare, gate, reproduce, doctor and stats: one zod schema per output
 * (the contract scripts rely on; tests parse every command's stdout with it) and the builder that
 * renders it. Rows are the cells of the files the command writes (comparison.csv, gate.csv,
 * reproduction*.csv, summary/comparisons CSVs), by column, so the JSON and the files agree.
 * `run --json` and `analyze --json` use harness/analyze's AnalysisJsonSchema.
 */
import { z } from 'zod';
import { COMPARISONS_DETAIL_HEADER, COMPARISONS_HEADER, comparisonDetailRow, comparisonRow, FAMILY_COLUMNS, SUMMARY_HEADER, summaryRow, type LongCsvResult } from '../../harness/analyze/index.ts';
import { COMPARISON_CSV_HEADER, comparabilityLines, comparisonCsvRows } from '../compare/compare-output.ts';
import type { BundleComparison } from '../compare/bundle-comparison.ts';
import { GATE_CSV_HEADER, gateRows } from '../gate/gate-output.ts';
import type { GateResult } from '../gate/gate.ts';
import { ORDERINGS_HEADER, orderingRows, REPRODUCTION_HEADER, reproductionRows } from '../reproduce/reproduce-output.ts';
import type { Reproduction } from '../reproduce/reproduce.ts';
import { jsonCell, JsonRow, jsonRows } from './cells.ts';

/** Version of every document below; bump when a field changes meaning. */
export const OUTPUT_JSON_SCHEMA_VERSION = 1;

const base = <C extends string>(command: C) => ({ schema_version: z.literal(OUTPUT_JSON_SCHEMA_VERSION), command: z.literal(command) });
const nullableString = z.string().nullable();

// ---- compare ----------------------------------------------------------------------------------

export const CompareJsonSchema = z.object({
  ...base('compare'),
  baseline_run: z.string(),
  candidate_run: z.string(),
  /** The environments differ on these keys (compare refuses with exit 3 unless --allow-env-mismatch). */
  environment_differences: z.array(z.object({ key: z.string(), baseline: nullableString, candidate: nullableString })),
  environment_mismatch_allowed: z.boolean(),
  /** Every comparability note the text output prints (unverified keys, spec differences, unmatched arms and metrics). */
  notes: z.array(z.string()),
  /** comparison.csv rows, column → cell. */
  rows: z.array(JsonRow),
  files: z.object({ csv: z.string(), markdown: z.string(), html: z.string() }).nullable(),
});
export type CompareJson = z.infer<typeof CompareJsonSchema>;

export function compareJson(comparison: BundleComparison, mismatchAllowed: boolean, files: CompareJson['files']): CompareJson {
  return {
    schema_version: OUTPUT_JSON_SCHEMA_VERSION,
    command: 'compare',
    baseline_run: comparison.baselineRun,
    candidate_run: comparison.candidateRun,
    environment_differences: comparison.env.differences.map((d) => ({ key: d.key, baseline: d.baseline ?? null, candidate: d.candidate ?? null })),
    environment_mismatch_allowed: mismatchAllowed,
    notes: comparabilityLines(comparison),
    rows: jsonRows(COMPARISON_CSV_HEADER, comparisonCsvRows(comparison)),
    files,
  };
}

// ---- gate -------------------------------------------------------------------------------------

export const GateJsonSchema = z.object({
  ...base('gate'),
  verdict: z.enum(['pass', 'regression', 'inconclusive', 'invalid']),
  exit_code: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  design: z.enum(['paired', 'independent', 'hierarchical']),
  family: z.string(),
  max_failed_fraction: z.number(),
  baseline_runs: z.array(z.string()),
  candidate_runs: z.array(z.string()),
  invalid_reasons: z.array(z.string()),
  warnings: z.array(z.string()),
  /** gate.csv rows (one per gated arm × metric), column → cell. */
  cells: z.array(JsonRow),
  /** Files written by --out, --junit and --summary-md. */
  files: z.array(z.string()),
});
export type GateJson = z.infer<typeof GateJsonSchema>;

export function gateJson(result: GateResult, files: string[]): GateJson {
  return {
    schema_version: OUTPUT_JSON_SCHEMA_VERSION,
    command: 'gate',
    verdict: result.verdict,
    exit_code: result.exitCode,
    design: result.design,
    family: result.family,
    max_failed_fraction: result.maxFailedFraction,
    baseline_runs: result.baselineRuns,
    candidate_runs: result.candidateRuns,
    invalid_reasons: result.invalidReasons,
    warnings: result.warnings,
    cells: jsonRows(GATE_CSV_HEADER, gateRows(result)),
    files,
  };
}

// ---- reproduce --------------------------------------------------------------------------------

export const ReproduceJsonSchema = z.object({
  ...base('reproduce'),
  run_id: z.string(),
  experiment: z.string(),
  matched: z.number(),
  unmatched: z.number(),
  /** reproduction.csv rows (matched first, then unmatched with the reason), column → cell. */
  rows: z.array(JsonRow),
  /** reproduction-orderings.csv rows, column → cell. */
  orderings: z.array(JsonRow),
  files: z.array(z.string()),
});
export type ReproduceJson = z.infer<typeof ReproduceJsonSchema>;

export function reproduceJson(r: Reproduction, files: string[]): ReproduceJson {
  return {
    schema_version: OUTPUT_JSON_SCHEMA_VERSION,
    command: 'reproduce',
    run_id: r.runId,
    experiment: r.experiment,
    matched: r.matched.length,
    unmatched: r.unmatched.length,
    rows: jsonRows(REPRODUCTION_HEADER, reproductionRows(r)),
    orderings: jsonRows(ORDERINGS_HEADER, orderingRows(r)),
    files,
  };
}

// ---- stats ------------------------------------------------------------------------------------

export const StatsJsonSchema = z.object({
  ...base('stats'),
  source: z.string(),
  value: z.string(),
  control: z.string(),
  /** summary.csv rows, column → cell. */
  summary: z.array(JsonRow),
  /** comparisons.csv rows plus the family columns of comparisons-detail.csv, column → cell. */
  comparisons: z.array(JsonRow),
  comparison_family: z.object({ label: z.string(), size: z.number() }),
  files: z.array(z.string()),
});
export type StatsJson = z.infer<typeof StatsJsonSchema>;

export function statsJson(result: LongCsvResult, options: { source: string; value: string }, files: string[]): StatsJson {
  const ctx = result.context;
  return {
    schema_version: OUTPUT_JSON_SCHEMA_VERSION,
    command: 'stats',
    source: options.source,
    value: options.value,
    control: result.control,
    summary: jsonRows(SUMMARY_HEADER, result.summaries.map((s) => summaryRow(ctx, s))),
    comparisons: result.comparisons.map((o, i) => {
      const detail = comparisonDetailRow(ctx, o, result.underpoweredFraction, result.family.members[i]);
      const family = Object.fromEntries(FAMILY_COLUMNS.map((c) => [c, jsonCell(detail[(COMPARISONS_DETAIL_HEADER as readonly string[]).indexOf(c)])]));
      return { ...jsonRows(COMPARISONS_HEADER, [comparisonRow(ctx, o)])[0]!, ...family };
    }),
    comparison_family: { label: result.family.label, size: result.family.size },
    files,
  };
}

// ---- doctor -----------------------------------------------------------------------------------

export const DoctorJsonSchema = z.object({
  ...base('doctor'),
  /** harness/provenance/host-facts.ts HostFacts (further keys allowed as the probe grows). */
  host: z.looseObject({ kernel: z.string(), cpu_model: z.string(), cores: z.number(), cgroup: z.string(), kvm_device: z.boolean() }),
  /** One per backend, harness/contracts/executor.ts ProbeResult. */
  backends: z.array(
    z.object({ backend: z.string(), available: z.boolean(), version: nullableString, details: z.record(z.string(), z.string()), reason: z.string().optional(), fix: z.string().optional() }),
  ),
  criu: z.looseObject({ path: nullableString, version: nullableString, usable: z.boolean(), reason: z.string().optional(), fix: z.string().optional() }),
});
export type DoctorJson = z.infer<typeof DoctorJsonSchema>;

export function doctorJson(facts: { host: DoctorJson['host']; backends: DoctorJson['backends']; criu: DoctorJson['criu'] }): DoctorJson {
  return { schema_version: OUTPUT_JSON_SCHEMA_VERSION, command: 'doctor', ...facts };
}
