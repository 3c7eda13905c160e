/** The CSV rendering of a BundleAnalysis: file name → bytes, in the order analyze writes them. */
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { toCsv } from '../bundle/csv.ts';
import type { BundleAnalysis } from './bundle-analysis.ts';
import { COMPARISONS_DETAIL_HEADER, COMPARISONS_HEADER, comparisonDetailRow, comparisonRow } from './comparison-table.ts';
import { EVIDENCE_HEADER, evidenceCells } from './evidence.ts';
import { SAMPLES_HEADER, sampleRows } from './samples-table.ts';
import { DIAGNOSTICS_HEADER, diagnosticsRow, SUMMARY_HEADER, summaryRow } from './summary-table.ts';

export function analysisFiles(analysis: BundleAnalysis): Map<string, string> {
  const ctx = analysis.context;
  const fraction = analysis.resolved.spec.underpowered_fraction;
  const files = new Map<string, string>();
  files.set(BUNDLE_FILES.samples, toCsv(SAMPLES_HEADER, sampleRows(analysis.records)));
  files.set(BUNDLE_FILES.summary, toCsv(SUMMARY_HEADER, analysis.summaries.map((s) => summaryRow(ctx, s))));
  files.set(BUNDLE_FILES.diagnostics, toCsv(DIAGNOSTICS_HEADER, analysis.summaries.map((s, i) => diagnosticsRow(ctx, s, analysis.driftFamily[i]))));
  files.set(BUNDLE_FILES.comparisons, toCsv(COMPARISONS_HEADER, analysis.comparisons.map((o) => comparisonRow(ctx, o))));
  files.set(BUNDLE_FILES.comparisonsDetail, toCsv(COMPARISONS_DETAIL_HEADER, analysis.comparisons.map((o, i) => comparisonDetailRow(ctx, o, fraction, analysis.family.members[i]))));
  for (const [name, content] of analysis.extras.files) {
    if (files.has(name)) throw new Error(`analysis extension for ${analysis.kind} tried to overwrite ${name}`);
    files.set(name, content);
  }
  files.set(BUNDLE_FILES.evidence, toCsv(EVIDENCE_HEADER, analysis.evidence.map(evidenceCells)));
  return files;
}
