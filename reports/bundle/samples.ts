/**
 * Per-arm, per-metric samples taken straight from the journal (the truth): formal (non-warmup)
 * trials only; only `ok` trials give values; every formal trial stays in the denominator, so
 * `failed` counts are reported next to every n (architecture doc, "Trial record").
 */
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { TIMING_METRICS, unitOf } from '../../harness/analyze/units.ts';

export interface Sample {
  arm: string;
  block: number;
  position: number;
  value: number;
}

export interface ArmCounts {
  planned: number;
  ok: number;
  failed: number;
  /** Non-ok formal trials by failure category (`invalid` when an invalid trial has no category). */
  byCategory: Record<string, number>;
}

/**
 * The unit a report summarizes: the arm, or for density batches the cell (arm, workload, N), since
 * batches of different concurrency are different experiments and must never be pooled.
 */
export function groupLabel(record: TrialRecord): string {
  const label = armLabel(record.arm);
  const n = record.facts?.concurrency;
  if (record.experiment === 'density' && (typeof n === 'number' || typeof n === 'string')) {
    return `${label} ${String(record.facts.workload ?? 'useful')} N=${n}`;
  }
  return label;
}

function groupOrder(a: TrialRecord, b: TrialRecord): number {
  const n = (r: TrialRecord) => Number(r.facts?.concurrency ?? 0);
  return String(a.facts?.workload ?? '').localeCompare(String(b.facts?.workload ?? '')) || n(a) - n(b);
}

export function formalTrials(records: readonly TrialRecord[]): TrialRecord[] {
  return records.filter((r) => !r.warmup);
}

/** Arm labels (density: cells) in the spec's order, then any extra ones found in the journal (sorted); a spec arm without records stays listed. */
export function armOrder(specArms: readonly { backend: string; variant?: string | null }[], records: readonly TrialRecord[]): string[] {
  const out: string[] = [];
  for (const arm of specArms) {
    const label = armLabel({ backend: arm.backend, variant: arm.variant ?? null });
    const mine = records.filter((r) => armLabel(r.arm) === label).sort(groupOrder);
    const groups = [...new Set(mine.map(groupLabel))];
    for (const g of groups.length > 0 ? groups : [label]) if (!out.includes(g)) out.push(g);
  }
  const extra = [...new Set(records.map(groupLabel))].filter((l) => !out.includes(l)).sort();
  return [...out, ...extra];
}

/** Every metric name an ok formal trial reported, sorted. */
export function metricNames(records: readonly TrialRecord[]): string[] {
  const names = new Set<string>();
  for (const r of formalTrials(records)) if (r.outcome === 'ok') for (const k of Object.keys(r.metrics)) names.add(k);
  return [...names].sort();
}

export function samplesFor(records: readonly TrialRecord[], metric: string, arm?: string): Sample[] {
  return formalTrials(records)
    .filter((r) => r.outcome === 'ok' && (arm === undefined || groupLabel(r) === arm))
    .filter((r) => typeof r.metrics[metric] === 'number' && Number.isFinite(r.metrics[metric]))
    .map((r) => ({ arm: groupLabel(r), block: r.block, position: r.position, value: r.metrics[metric]! }))
    .sort((a, b) => a.position - b.position);
}

export function armCounts(records: readonly TrialRecord[], arm: string): ArmCounts {
  const trials = formalTrials(records).filter((r) => groupLabel(r) === arm);
  const byCategory: Record<string, number> = {};
  for (const r of trials) {
    if (r.outcome === 'ok') continue;
    const key = r.failure_category ?? r.outcome;
    byCategory[key] = (byCategory[key] ?? 0) + 1;
  }
  const ok = trials.filter((r) => r.outcome === 'ok').length;
  return { planned: trials.length, ok, failed: trials.length - ok, byCategory };
}

/** Report order: the timing metrics (ready, result, completion), then metrics with a unit, then counts and the rest, each alphabetically. */
export function reportMetricOrder(names: readonly string[]): string[] {
  const rank = (m: string) => {
    const timing = (TIMING_METRICS as readonly string[]).indexOf(m);
    return timing >= 0 ? timing : unitOf(m) ? 10 : 20;
  };
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Unit of a metric from its name's suffix, the same rule analyze uses for summary.csv. */
export function metricUnit(metric: string): string {
  return unitOf(metric);
}
