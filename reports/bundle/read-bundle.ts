/**
 * Loads a finished run bundle (architecture doc, "Bundle") for the report, compare, gate and
 * reproduce commands. Read-only: nothing here writes to the bundle, spawns a process or touches an
 * executor. Optional files come back as null so callers can say what is missing instead of guessing.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../../harness/errors.ts';
import { BUNDLE_FILES } from '../../harness/bundle-layout.ts';
import { readJournal } from '../../harness/journal/journal.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { readCsvIfExists, type CsvTable } from './csv.ts';

/** The subset of the spec the reports use; lenient (loose objects) so newer spec sections never break old reports. */
const ReportSpecSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  experiment: z.string(),
  arms: z.array(z.looseObject({ backend: z.string(), variant: z.string().nullish() })),
  warmups: z.number().optional(),
  trials: z.number().optional(),
  seed: z.number().optional(),
  timeout: z.number().optional(),
  controls: z.record(z.string(), z.unknown()).optional(),
  image: z.record(z.string(), z.unknown()).optional(),
  task: z.record(z.string(), z.unknown()).optional(),
  compare: z.array(z.object({ candidate: z.string(), control: z.string(), metric: z.string() })).optional(),
  resamples: z.number().int().positive().optional(),
  underpowered_fraction: z.number().positive().optional(),
});
export type ReportSpec = z.infer<typeof ReportSpecSchema>;

const ResolvedSpecSchema = z.looseObject({
  run_id: z.string(),
  spec_path: z.string().optional(),
  spec_sha256: z.string().optional(),
  overrides: z.unknown().optional(),
  spec: ReportSpecSchema,
});
export type ResolvedSpec = z.infer<typeof ResolvedSpecSchema>;

const PlanSchema = z.looseObject({
  trials: z.array(
    z.looseObject({
      trial_id: z.string(),
      block: z.number(),
      position: z.number(),
      warmup: z.boolean(),
      arm: z.object({ backend: z.string(), variant: z.string().nullable() }),
    }),
  ),
});
export type BundlePlan = z.infer<typeof PlanSchema>;

export interface Bundle {
  dir: string;
  resolved: ResolvedSpec;
  plan: BundlePlan | null;
  journal: TrialRecord[];
  /** Warning about a torn last journal line, if any. */
  journalWarning: string | null;
  summary: CsvTable | null;
  comparisons: CsvTable | null;
  comparisonsDetail: CsvTable | null;
  diagnostics: CsvTable | null;
  evidence: CsvTable | null;
  densitySummary: CsvTable | null;
  /** Host facts; shape owned by harness/provenance, so read defensively. */
  environment: Record<string, unknown> | null;
  manifest: Record<string, unknown> | null;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)}); the bundle is damaged or unfinished`);
  }
}

function readJsonObjectIfExists(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  const value = readJson(path);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

export function readBundle(dir: string): Bundle {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new UserError(`${dir}: not a directory; pass a run bundle such as runs/<run-id>/`);
  }
  const resolvedPath = join(dir, BUNDLE_FILES.resolvedSpec);
  if (!existsSync(resolvedPath)) {
    throw new UserError(`${resolvedPath}: missing; this is not a sandbench bundle (or the run never started)`);
  }
  const resolvedParsed = ResolvedSpecSchema.safeParse(readJson(resolvedPath));
  if (!resolvedParsed.success) {
    const issue = resolvedParsed.error.issues[0];
    throw new UserError(`${resolvedPath}: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`);
  }
  const planPath = join(dir, BUNDLE_FILES.plan);
  const planParsed = existsSync(planPath) ? PlanSchema.safeParse(readJson(planPath)) : null;
  let journal: ReturnType<typeof readJournal>;
  try {
    journal = readJournal(join(dir, BUNDLE_FILES.journal));
  } catch (error) {
    throw new UserError(error instanceof Error ? error.message : String(error), 3);
  }
  return {
    dir,
    resolved: resolvedParsed.data,
    plan: planParsed?.success ? planParsed.data : null,
    journal: journal.records,
    journalWarning: journal.tornTail,
    summary: readCsvIfExists(join(dir, BUNDLE_FILES.summary)),
    comparisons: readCsvIfExists(join(dir, BUNDLE_FILES.comparisons)),
    comparisonsDetail: readCsvIfExists(join(dir, 'comparisons-detail.csv')),
    diagnostics: readCsvIfExists(join(dir, 'diagnostics.csv')),
    evidence: readCsvIfExists(join(dir, BUNDLE_FILES.evidence)),
    densitySummary: readCsvIfExists(join(dir, 'density-summary.csv')),
    environment: readJsonObjectIfExists(join(dir, BUNDLE_FILES.environment)),
    manifest: readJsonObjectIfExists(join(dir, BUNDLE_FILES.manifest)),
  };
}
