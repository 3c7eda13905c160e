/**
 * The machine-readable rendering of a BundleAnalysis (`--json`): one document, the same numbers as
 * the CSVs (summary and comparison rows are those files' cells by column), with a schema version.
 * The zod schema is the contract scripts can rely on; tests validate every fixture against it.
 */
import { z } from 'zod';
import { ANALYSIS_SCHEMA_VERSION, armsWithoutValidTrials, type BundleAnalysis } from './bundle-analysis.ts';
import { COMPARISONS_DETAIL_HEADER, COMPARISONS_HEADER, comparisonDetailRow, comparisonRow } from './comparison-table.ts';
import { SUMMARY_HEADER, summaryRow } from './summary-table.ts';
import type { Cell } from '../bundle/csv.ts';

const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const AnalysisJsonSchema = z.object({
  schema_version: z.literal(ANALYSIS_SCHEMA_VERSION),
  run_id: z.string(),
  kind: z.string(),
  primary_metrics: z.array(z.string()),
  arms: z.array(z.string()),
  metrics: z.array(z.string()),
  /** summary.csv rows, column → cell. */
  summary: z.array(z.record(z.string(), cell)),
  /** comparisons.csv rows, column → cell, plus the family columns of comparisons-detail.csv (FAMILY_COLUMNS). */
  comparisons: z.array(z.record(z.string(), cell)),
  /** The comparisons' multiplicity family: Holm over their rank tests; which verdicts survive is per comparison. */
  comparison_family: z.object({ label: z.string(), size: z.number(), verdicts: z.number(), surviving: z.number() }),
  /** Per-arm P50 CIs (order statistics), which the CSV contract headers do not carry. */
  p50_ci: z.array(z.object({ arm: z.string(), metric: z.string(), low: z.number(), high: z.number(), coverage: z.number() })),
  trials: z.array(z.object({ arm: z.string(), planned: z.number(), ok: z.number(), failed: z.number(), infrastructure: z.number(), task: z.number(), by_category: z.record(z.string(), z.number()) })),
  arms_without_valid_trials: z.array(z.object({ arm: z.string(), planned: z.number(), dominant: z.string() })),
  warnings: z.array(z.string()),
});
export type AnalysisJson = z.infer<typeof AnalysisJsonSchema>;

/** The comparisons-detail.csv columns each `comparisons` entry of the JSON also carries. */
export const FAMILY_COLUMNS = ['rank_test_p', 'family', 'family_size', 'holm_p', 'verdict_survives_holm'] as const;

const asCell = (c: Cell): string | number | boolean | null => (c === undefined ? null : typeof c === 'number' && !Number.isFinite(c) ? String(c) : c);
const byColumn = (header: readonly string[], cells: readonly Cell[]) => Object.fromEntries(header.map((h, i) => [h, asCell(cells[i])]));

export function analysisJson(analysis: BundleAnalysis): AnalysisJson {
  return {
    schema_version: ANALYSIS_SCHEMA_VERSION,
    run_id: analysis.runId,
    kind: analysis.kind,
    primary_metrics: analysis.primaryMetrics,
    arms: analysis.arms,
    metrics: analysis.metrics,
    summary: analysis.summaries.map((s) => byColumn(SUMMARY_HEADER, summaryRow(analysis.context, s))),
    comparisons: analysis.comparisons.map((o, i) => {
      const detail = byColumn(COMPARISONS_DETAIL_HEADER, comparisonDetailRow(analysis.context, o, analysis.resolved.spec.underpowered_fraction, analysis.family.members[i]));
      return { ...byColumn(COMPARISONS_HEADER, comparisonRow(analysis.context, o)), ...Object.fromEntries(FAMILY_COLUMNS.map((c) => [c, detail[c] ?? null])) };
    }),
    comparison_family: {
      label: analysis.family.label,
      size: analysis.family.size,
      verdicts: analysis.family.members.filter((m) => m.survives !== null).length,
      surviving: analysis.family.members.filter((m) => m.survives === true).length,
    },
    p50_ci: analysis.summaries.flatMap((s) => (s.medianCi ? [{ arm: s.data.arm, metric: s.data.metric, low: s.medianCi.low, high: s.medianCi.high, coverage: s.medianCi.coverage }] : [])),
    trials: analysis.trials.map((t) => ({ arm: t.arm, planned: t.planned, ok: t.ok, failed: t.failed, infrastructure: t.infrastructure, task: t.task, by_category: t.byCategory })),
    arms_without_valid_trials: armsWithoutValidTrials(analysis),
    warnings: analysis.warnings,
  };
}
