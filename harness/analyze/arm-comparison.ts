/**
 * A comparison of two arms of one analysed bundle that the spec did not declare (reproduce's
 * published orderings): the same pairing and bootstrap as comparisons.csv, so a reproduced ratio
 * and a declared one are computed one way.
 */
import type { BundleAnalysis } from './bundle-analysis.ts';
import { runComparison, type ComparisonOutcome } from './comparison-table.ts';

export function compareArms(analysis: BundleAnalysis, candidate: string, control: string, metric: string): ComparisonOutcome | null {
  const c = analysis.data.find((d) => d.arm === candidate && d.metric === metric);
  const k = analysis.data.find((d) => d.arm === control && d.metric === metric);
  if (!c || !k || c.observations.length === 0 || k.observations.length === 0) return null;
  const spec = analysis.resolved.spec;
  return runComparison(c, k, { resamples: spec.resamples, seedId: `${analysis.runId}:${metric}:${candidate}/${control}`, underpoweredFraction: spec.underpowered_fraction });
}
