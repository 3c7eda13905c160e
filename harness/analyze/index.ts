/** harness/analyze: bundle → one BundleAnalysis → CSVs. A pure core (analyzeRecords) and a thin I/O shell (analyzeBundle). */
export { analyzeBundle, analyzeLoadedBundle, descriptorFor, type AnalyzedBundle, type AnalyzeBundleResult, type AnalyzeBundleOptions } from './analyze-bundle.ts';
export { analyzeRecords, comparisonRequests, type ComparisonRequest } from './analyze-records.ts';
export { analysisFiles } from './analysis-files.ts';
export { analysisJson, AnalysisJsonSchema, FAMILY_COLUMNS, type AnalysisJson } from './analysis-json.ts';
export { compareArms } from './arm-comparison.ts';
export { comparisonFamily, hasVerdict, memberOf, type ComparisonFamily, type FamilyMember } from './comparison-family.ts';
export { ANALYSIS_SCHEMA_VERSION, armsWithoutValidTrials, armsNotApplicable, type EmptyArm, summaryOf, dataOf, samplesOf, trialsOf, armsWithTrials, metricsWithSamples, type BundleAnalysis, type ArmSummary, type ArmTrials, type ArmSample, type KindExtras } from './bundle-analysis.ts';
export { fallbackAnalysis, expectedBlocks, type AnalysisInput, type KindAnalysis, type KindCatalog, type KindChart, type KindExtension, type KindExtensionOutput } from './kind-analysis.ts';
export { EVIDENCE_HEADER, EVIDENCE_SOURCE, conditionOf, evidenceCells, type EvidenceRow, type EvidenceStatistic } from './evidence.ts';
export { SUMMARY_HEADER, DIAGNOSTICS_HEADER, summarizeArmMetric, summaryRow, diagnosticsRow, type TableContext, type ArmMetricSummary, type ArmDiagnostics } from './summary-table.ts';
export { COMPARISONS_HEADER, COMPARISONS_DETAIL_HEADER, INSUFFICIENT_DATA, runComparison, comparisonRow, comparisonDetailRow, type ComparisonOutcome } from './comparison-table.ts';
export { SAMPLES_HEADER } from './samples-table.ts';
export { unitOf, TIMING_METRICS } from './units.ts';
export { designOf, replicatesOf, isReplicated, noIntervalText, MIN_UNITS_FOR_INTERVAL, PER_TRIAL, type MetricDesign, type ReplicationUnit, type MetricScale } from './metric-design.ts';
export { armOrder, metricOrder, latestPerTrial, collectArmMetrics, type ArmMetricData, type Observation } from './arm-metric.ts';
export { analyzeLongCsv, formatLongCsvResult, type LongCsvOptions, type LongCsvResult } from './long-csv.ts';
export { textTable, markdownTable, htmlTable, csvTable, escapeHtml, mdCell, type Table } from './table.ts';
// Bad bundle input: BundleInputError (exit 2, or 3 for damaged data); the old name stays for callers.
export { BundleInputError, BundleInputError as AnalysisInputError, parseResolvedSpec } from '../bundle/schemas.ts';
export { toCsv, formatCell, type Cell } from '../bundle/csv.ts';
