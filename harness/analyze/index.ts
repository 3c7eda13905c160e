/** harness/analyze: bundle → CSVs. A pure core (analyzeRecords) and a thin I/O shell (analyzeBundle). */
export { analyzeBundle, type AnalyzeBundleResult } from './analyze-bundle.ts';
export { analyzeRecords, comparisonRequests, ANALYSIS_FILES, type AnalyzeOptions, type ComparisonRequest } from './analyze-records.ts';
export { registerAnalysisExtension, analysisExtensionFor, type AnalysisExtension, type AnalysisExtensionOutput, type AnalysisInput } from './kind-extensions.ts';
export { EVIDENCE_HEADER, KIND_SCENARIOS, EVIDENCE_SOURCE, conditionOf, scenarioOf, evidenceCells, type EvidenceRow, type EvidenceStatistic } from './evidence.ts';
export { SUMMARY_HEADER, DIAGNOSTICS_HEADER, summarizeArmMetric, summaryRow, diagnosticsRow, type TableContext, type ArmMetricSummary } from './summary-table.ts';
export { COMPARISONS_HEADER, COMPARISONS_DETAIL_HEADER, INSUFFICIENT_DATA, runComparison, comparisonRow, comparisonDetailRow, type ComparisonOutcome } from './comparison-table.ts';
export { SAMPLES_HEADER } from './samples-table.ts';
export { toCsv, formatCell, type Cell } from './csv.ts';
export { unitOf, TIMING_METRICS } from './units.ts';
export { AnalysisInputError, parseResolvedSpec } from './resolved-spec.ts';
export type { ArmMetricData, Observation } from './arm-metric.ts';
export { analyzeLongCsv, alignedTable, formatLongCsvResult, type LongCsvOptions, type LongCsvResult } from './long-csv.ts';
