/** The thin I/O shell of `analyze`: read resolved-spec.json and journal.jsonl, write the CSVs. */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLE_FILES } from '../bundle-layout.ts';
import { readJournal } from '../journal/journal.ts';
import { analyzeRecords } from './analyze-records.ts';
import { AnalysisInputError, parseResolvedSpec } from './resolved-spec.ts';
import './registered-extensions.ts';

export interface AnalyzeBundleResult {
  files: string[];
  /** e.g. a torn last journal line that was dropped. */
  warnings: string[];
}

export function analyzeBundle(bundleDir: string): AnalyzeBundleResult {
  if (!existsSync(bundleDir) || !statSync(bundleDir).isDirectory()) throw new AnalysisInputError(`${bundleDir}: not a directory (pass a run bundle, e.g. runs/<run-id>)`);
  const specPath = join(bundleDir, BUNDLE_FILES.resolvedSpec);
  if (!existsSync(specPath)) throw new AnalysisInputError(`${specPath}: missing; is ${bundleDir} a sandbench bundle?`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(specPath, 'utf8'));
  } catch (error) {
    throw new AnalysisInputError(`${specPath}: not valid JSON (${error instanceof Error ? error.message : error})`);
  }
  const resolved = parseResolvedSpec(json, specPath);
  const journalPath = join(bundleDir, BUNDLE_FILES.journal);
  let journal;
  try {
    journal = readJournal(journalPath);
  } catch (error) {
    throw new AnalysisInputError(error instanceof Error ? error.message : String(error));
  }
  const files = analyzeRecords({ resolved, records: journal.records });
  for (const [name, content] of files) writeFileSync(join(bundleDir, name), content);
  return { files: [...files.keys()], warnings: journal.tornTail ? [journal.tornTail] : [] };
}
