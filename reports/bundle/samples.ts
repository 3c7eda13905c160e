/**
 * Per-arm, per-metric samples taken straight from the journal (the truth): formal (non-warmup)
 * trials only; only `ok` trials give values; every formal trial stays in the denominator, so
 * `failed` counts are reported next to every n (architecture doc, "Trial record").
 */
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { unitOf } from '../../harness/analyze/units.ts';

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

export function formalTrials(records: readonly TrialRecord[]): TrialRecord[] {
  return records.filter((r) => !r.warmup);
}

/** Arm labels in the spec's order, then any extra arms found in the journal (sorted). */
export function armOrder(specArms: readonly { backend: string; variant?: string | null }[], records: readonly TrialRecord[]): string[] {
  const fromSpec = specArms.map((a) => armLabel({ backend: a.backend, variant: a.variant ?? null }));
  const extra = [...new Set(records.map((r) => armLabel(r.arm)))].filter((l) => !fromSpec.includes(l)).sort();
  return [...fromSpec, ...extra];
}

/** Every metric name an ok formal trial reported, sorted. */
export function metricNames(records: readonly TrialRecord[]): string[] {
  const names = new Set<string>();
  for (const r of formalTrials(records)) if (r.outcome === 'ok') for (const k of Object.keys(r.metrics)) names.add(k);
  return [...names].sort();
}

export function samplesFor(records: readonly TrialRecord[], metric: string, arm?: string): Sample[] {
  return formalTrials(records)
    .filter((r) => r.outcome === 'ok' && (arm === undefined || armLabel(r.arm) === arm))
    .filter((r) => typeof r.metrics[metric] === 'number' && Number.isFinite(r.metrics[metric]))
    .map((r) => ({ arm: armLabel(r.arm), block: r.block, position: r.position, value: r.metrics[metric]! }))
    .sort((a, b) => a.position - b.position);
}

export function armCounts(records: readonly TrialRecord[], arm: string): ArmCounts {
  const trials = formalTrials(records).filter((r) => armLabel(r.arm) === arm);
  const byCategory: Record<string, number> = {};
  for (const r of trials) {
    if (r.outcome === 'ok') continue;
    const key = r.failure_category ?? r.outcome;
    byCategory[key] = (byCategory[key] ?? 0) + 1;
  }
  const ok = trials.filter((r) => r.outcome === 'ok').length;
  return { planned: trials.length, ok, failed: trials.length - ok, byCategory };
}

/** Unit of a metric from its name's suffix, the same rule analyze uses for summary.csv. */
export function metricUnit(metric: string): string {
  return unitOf(metric);
}
