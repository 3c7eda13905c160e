/**
 * The multiplicity family of one run's comparisons, computed once in the results model
 * (BundleAnalysis.family) so comparisons-detail.csv, report.md/html and `--json` show the same
 * Holm p-values and survival flags. The rank-test p-values (signed-rank when paired, Mann–Whitney
 * otherwise; McNemar's exact test for a 0/1 score) are Holm-adjusted together (FWER at 5% under
 * any dependence); a comparison without a p-value is not in the family. `stats` builds the same family over a long CSV's comparisons.
 */
import { holmWithGaps, SIGNIFICANCE_LEVEL } from '../stats/index.ts';
import type { ComparisonOutcome } from './comparison-table.ts';

export interface FamilyMember {
  rankP: number | null;
  holmP: number | null;
  size: number;
  family: string;
  /** Null when the comparison drew no verdict (nothing to survive); else whether its Holm p < 0.05. */
  survives: boolean | null;
}

export interface ComparisonFamily {
  /** e.g. "comparisons of run r1: 6 rank test(s), Holm-adjusted". */
  label: string;
  /** Comparisons with a finite rank-test p-value (the family's size). */
  size: number;
  /** One per comparison, in the order of the comparisons. */
  members: FamilyMember[];
}

const VERDICTS = new Set(['candidate faster', 'candidate slower', 'candidate higher', 'candidate lower']);

/** Whether a comparison concluded a direction (only those can survive or fail the correction). */
export function hasVerdict(outcome: ComparisonOutcome): boolean {
  return VERDICTS.has(outcome.result?.conclusion ?? outcome.score?.conclusion ?? '');
}

export function comparisonFamily(outcomes: readonly ComparisonOutcome[], label: string): ComparisonFamily {
  // A score's test (McNemar, or signed-rank on paired means) is a member like any rank test.
  const ps = outcomes.map((o) => (o.result ? (o.result.signed_rank_p ?? o.result.mann_whitney_p) : (o.score?.p ?? null)));
  const adjusted = holmWithGaps(ps);
  const size = ps.filter((p) => p !== null && Number.isFinite(p)).length;
  const family = `${label}: ${size} rank test(s), Holm-adjusted`;
  const members = outcomes.map((o, i): FamilyMember => {
    const holmP = adjusted[i] ?? null;
    return { rankP: ps[i] ?? null, holmP, size, family, survives: hasVerdict(o) && holmP !== null ? holmP < SIGNIFICANCE_LEVEL : null };
  });
  return { label: family, size, members };
}

/** The family member of a comparison of this analysis (undefined for a comparison it does not hold). */
export function memberOf(family: ComparisonFamily, comparisons: readonly ComparisonOutcome[], outcome: ComparisonOutcome): FamilyMember | undefined {
  const index = comparisons.indexOf(outcome);
  return index < 0 ? undefined : family.members[index];
}
