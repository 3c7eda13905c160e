/**
 * Our side of `reproduce`: the bundle's evidence.csv rows, indexed on variant / metric / statistic
 * (plus workload and concurrency for density cells), and the CI that goes with each value.
 */
import { num } from '../../harness/bundle/csv.ts';
import { summaryOf, type AnalyzedBundle as Bundle, type EvidenceRow } from '../../harness/analyze/index.ts';
import { concurrencyOf } from './published.ts';

export interface OurRow {
  variant: string;
  metric: string;
  statistic: string;
  n: number | null;
  value: number | null;
  unit: string;
  condition: string;
}

export interface OurValue extends OurRow {
  ciLow: number | null;
  ciHigh: number | null;
  ciMethod: string;
}

export function cellKey(variant: string, metric: string, statistic: string, cell = ''): string {
  return [variant, metric, statistic, cell].join('\u0000');
}

/** Density cells are told apart by workload and N in the condition text ("useful Python/Git 32 MiB; concurrency 16; ..."). */
export function densityCell(condition: string, workload?: string): string {
  const n = concurrencyOf(condition);
  if (n === null) return '';
  const w = workload ?? (/^\s*(useful|idle)\b/.exec(condition)?.[1] ?? '');
  return `${w}:${n}`;
}

export class OurEvidence {
  private readonly rows = new Map<string, OurRow>();
  readonly variants: Set<string>;

  constructor(private readonly bundle: Bundle) {
    // The analysis's own evidence rows (what evidence.csv holds); the kind says how its cells are told apart.
    for (const r of bundle.analysis.evidence) {
      const row = toRow(r);
      const cell = bundle.descriptor.evidenceCell?.(row) ?? '';
      const key = cellKey(row.variant, row.metric, row.statistic, cell);
      if (!this.rows.has(key)) this.rows.set(key, row);
    }
    this.variants = new Set([...this.rows.values()].map((r) => r.variant));
  }

  get(variant: string, metric: string, statistic: string, cell = ''): OurValue | null {
    const row = this.rows.get(cellKey(variant, metric, statistic, cell));
    if (!row) return null;
    return { ...row, ...this.intervalFor(row, cell) };
  }

  /** Is there any evidence for this density cell (any metric)? */
  hasCell(variant: string, cell: string): boolean {
    return [...this.rows.keys()].some((k) => k.startsWith(`${variant}\u0000`) && k.endsWith(`\u0000${cell}`));
  }

  private intervalFor(row: OurRow, cell: string): Pick<OurValue, 'ciLow' | 'ciHigh' | 'ciMethod'> {
    if (row.statistic === 'diff_of_medians') {
      const low = this.rows.get(cellKey(row.variant, row.metric, 'diff_ci95_low', cell));
      const high = this.rows.get(cellKey(row.variant, row.metric, 'diff_ci95_high', cell));
      if (low && high) return { ciLow: low.value, ciHigh: high.value, ciMethod: 'bootstrap percentile 95% CI (evidence.csv; method in its condition)' };
    }
    if (row.statistic === 'P50' && !cell) {
      const ci = summaryOf(this.bundle.analysis, row.variant, row.metric)?.medianCi;
      if (ci) return { ciLow: ci.low, ciHigh: ci.high, ciMethod: ci.method };
    }
    if (row.statistic === 'count') return { ciLow: null, ciHigh: null, ciMethod: `count out of ${row.n ?? '?'}` };
    return { ciLow: null, ciHigh: null, ciMethod: 'none (descriptive)' };
  }

  /** Why a statistic is absent for a variant and metric that was measured. */
  whyMissing(variant: string, metric: string, statistic: string): string {
    const s = summaryOf(this.bundle.analysis, variant, metric)?.summary;
    if (!s || s.n === 0) return `no ok samples of ${metric} for ${variant} in this bundle`;
    const split = s.clusters?.distribution === 'separated-clusters';
    if (statistic === 'P95_reference' && s.p95 === null) return `our n = ${s.n} < 30: no P95 reported`;
    if (statistic === 'P50' && split) return 'our distribution is separated clusters: no single P50 (see our cluster medians)';
    if (/cluster_median/.test(statistic) && !split) return `our distribution is unsplit: no cluster medians (our P50 ${s.p50})`;
    return `evidence.csv has no ${statistic} row for ${variant} ${metric}`;
  }
}

function toRow(r: EvidenceRow): OurRow {
  return {
    variant: r.variant,
    metric: r.metric,
    statistic: r.statistic,
    n: r.n,
    value: typeof r.value === 'number' ? (Number.isFinite(r.value) ? r.value : null) : num(r.value ?? undefined),
    unit: r.unit,
    condition: r.condition,
  };
}
