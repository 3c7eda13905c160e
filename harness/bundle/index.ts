/** harness/bundle: the bundle format — file names, schemas, the one reader, the one writer and the one CSV writer. */
export { BUNDLE_FILES, ANALYSIS_CSVS, type BundleFileKey } from './layout.ts';
export { toCsv, formatCell, sortedJson, parseCsv, readCsvIfExists, num, type Cell, type CsvRow, type CsvTable } from './csv.ts';
export {
  BundleInputError,
  ResolvedSpecSchema,
  parseResolvedSpec,
  PlanSchema,
  parsePlan,
  SummaryRowSchema,
  ComparisonRowSchema,
  EvidenceRowSchema,
  typedRows,
  type ResolvedSpec,
  type BundlePlan,
  type SummaryCsvRow,
  type ComparisonCsvRow,
  type EvidenceCsvRow,
} from './schemas.ts';
export { readBundle, type Bundle } from './read.ts';
export { writeBundleFiles, bundleJson } from './write.ts';
