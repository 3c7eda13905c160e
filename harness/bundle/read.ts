/**
 * The one reader of finished run bundles, used by analyze, the reports (report, compare, gate,
 * reproduce) and fleet merge. Read-only. Optional files come back as null so callers can say what is
 * missing instead of guessing; a damaged required file is a BundleInputError naming the file.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '../journal/journal.ts';
import type { TrialRecord } from '../journal/trial-record.ts';
import { readCsvIfExists, type CsvTable } from './csv.ts';
import { BUNDLE_FILES } from './layout.ts';
import { BundleInputError, JsonObjectSchema, parsePlan, parseResolvedSpec, type BundlePlan, type ResolvedSpec } from './schemas.ts';

export interface Bundle {
  dir: string;
  resolved: ResolvedSpec;
  plan: BundlePlan | null;
  /** Every journal record, warmups and failures included, in journal order. */
  journal: TrialRecord[];
  /** Warning about a torn last journal line, if any. */
  journalWarning: string | null;
  /** Host facts; shape owned by harness/provenance, so read defensively. */
  environment: Record<string, unknown> | null;
  manifest: Record<string, unknown> | null;
  /** A CSV of the bundle by file name (BUNDLE_FILES or a kind's file), or null when absent. */
  csv(name: string): CsvTable | null;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new BundleInputError(`${path}: not valid JSON (${error instanceof Error ? error.message : String(error)}); the bundle is damaged or unfinished`);
  }
}

function readJsonObjectIfExists(path: string): Record<string, unknown> | null {
  if (!existsSync(path)) return null;
  const parsed = JsonObjectSchema.safeParse(readJson(path));
  return parsed.success ? parsed.data : null;
}

export function readBundle(dir: string): Bundle {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BundleInputError(`${dir}: not a directory (pass a run bundle, e.g. runs/<run-id>)`);
  const resolvedPath = join(dir, BUNDLE_FILES.resolvedSpec);
  if (!existsSync(resolvedPath)) throw new BundleInputError(`${resolvedPath}: missing; is ${dir} a sandbench bundle (or did the run never start)?`);
  const resolved = parseResolvedSpec(readJson(resolvedPath), resolvedPath);
  const planPath = join(dir, BUNDLE_FILES.plan);
  // An unreadable plan only costs the "incomplete run" warning, so it is optional here.
  let plan: BundlePlan | null = null;
  if (existsSync(planPath)) {
    try {
      plan = parsePlan(readJson(planPath), planPath);
    } catch {
      plan = null;
    }
  }
  let journal: ReturnType<typeof readJournal>;
  try {
    journal = readJournal(join(dir, BUNDLE_FILES.journal));
  } catch (error) {
    // A malformed line in the middle is damaged data, not a usage mistake.
    throw new BundleInputError(error instanceof Error ? error.message : String(error), 3);
  }
  const cache = new Map<string, CsvTable | null>();
  return {
    dir,
    resolved,
    plan,
    journal: journal.records,
    journalWarning: journal.tornTail,
    environment: readJsonObjectIfExists(join(dir, BUNDLE_FILES.environment)),
    manifest: readJsonObjectIfExists(join(dir, BUNDLE_FILES.manifest)),
    csv(name: string) {
      if (!cache.has(name)) cache.set(name, readCsvIfExists(join(dir, name)));
      return cache.get(name)!;
    },
  };
}
