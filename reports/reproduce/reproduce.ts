/**
 * Joins the published figures with a bundle's evidence: published value, ours with its CI, the
 * published and our ratios to a reference backend (absolute times differ across machines; ratios
 * travel better), and whether each published ordering holds here. Every published row ends up
 * either matched or unmatched with the reason.
 */
import { armLabel } from '../../harness/journal/trial-record.ts';
import { compareArms, type AnalyzedBundle as Bundle } from '../../harness/analyze/index.ts';
import { OurEvidence, densityCell, type OurValue } from './our-evidence.ts';
import { concurrencyOf, type ArmTargetValue, type Mapping, type PublishedRow } from './published.ts';

export interface MatchedRow {
  published: PublishedRow;
  variant: string;
  metric: string;
  statistic: string;
  cell: string;
  ours: OurValue;
  reference: string | null;
  publishedRatio: number | null;
  ourRatio: number | null;
}

export interface UnmatchedRow {
  published: PublishedRow;
  reason: string;
}

export type OrderingStatus = 'holds' | 'holds (not significant)' | 'does not hold' | 'reversed' | 'reversed (not significant)' | 'too few samples' | 'not checked';

/** Below 5 ok samples per arm a median's bootstrap has only a handful of distinct values (same floor as the gate). */
const MIN_ORDERING_SAMPLES = 5;

export interface OrderingCheck {
  id: string;
  claim: string;
  faster: string;
  slower: string;
  publishedRatio: number | null;
  ourRatio: number | null;
  ourLow: number | null;
  ourHigh: number | null;
  n: string;
  method: string;
  status: OrderingStatus;
  reason: string;
}

export interface Reproduction {
  runId: string;
  experiment: string;
  matched: MatchedRow[];
  unmatched: UnmatchedRow[];
  orderings: OrderingCheck[];
}

type Resolved = { kind: 'arm'; variant: string } | { kind: 'pair'; candidate: string; control: string; variant: string } | { kind: 'none'; reason: string };

function resolveTarget(target: ArmTargetValue | undefined, arms: readonly string[], backend: string, mapping: Mapping): Resolved {
  if (target === undefined) return { kind: 'none', reason: mapping.unsupported_backends[backend] ?? `no sandbench counterpart mapped for published backend "${backend}"` };
  if (typeof target === 'object' && !Array.isArray(target)) {
    const absent = [target.candidate, target.control].filter((a) => !arms.includes(a));
    if (absent.length > 0) return { kind: 'none', reason: `arm ${absent.join(' and ')} not in this bundle (arms: ${arms.join(', ')})` };
    return { kind: 'pair', candidate: target.candidate, control: target.control, variant: `${target.candidate} minus ${target.control}` };
  }
  const options = Array.isArray(target) ? target : [target];
  const present = options.find((o) => arms.includes(o));
  return present ? { kind: 'arm', variant: present } : { kind: 'none', reason: `arm ${options.join(' or ')} not in this bundle (arms: ${arms.join(', ')})` };
}

/** Latest cohort first, so a superseded figure is never preferred. */
function latest(rows: PublishedRow[]): PublishedRow | undefined {
  return [...rows].sort((a, b) => b.batchDate.localeCompare(a.batchDate) || b.row - a.row)[0];
}

function needsRun(experiment: string, bundle: Bundle): string {
  return `needs a${/^[aeiou]/.test(experiment) ? 'n' : ''} ${experiment} run; this bundle is ${bundle.resolved.spec.experiment}`;
}

function joinRow(p: PublishedRow, bundle: Bundle, ours: OurEvidence, arms: string[], mapping: Mapping): { matched?: Omit<MatchedRow, 'reference' | 'publishedRatio' | 'ourRatio'>; reason?: string } {
  const topic = mapping.topics[p.topic];
  if (!topic) return { reason: `topic "${p.topic}" is not in the mapping` };
  if (topic.unsupported) return { reason: topic.unsupported };
  if (mapping.unsupported_backends[p.backend]) return { reason: mapping.unsupported_backends[p.backend] };
  if (mapping.unsupported_statistics[p.statistic]) return { reason: mapping.unsupported_statistics[p.statistic] };
  const stat = mapping.statistics[p.statistic];
  if (!stat) return { reason: `no mapping for published statistic "${p.statistic}"` };
  if (p.value === null) return { reason: `the published row has no value (n = ${p.n ?? 0}; ${p.limits || 'no figure'})` };
  if (topic.experiment !== bundle.resolved.spec.experiment) return { reason: needsRun(topic.experiment ?? p.topic, bundle) };
  const target = resolveTarget(mapping.backends[p.backend], arms, p.backend, mapping);
  if (target.kind === 'none') return { reason: target.reason };
  // Topics measured in cells (density: workload and N) name their workload in the mapping.
  const cell = topic.workload !== undefined ? densityCell(p.limits, topic.workload) : '';
  if (cell && !ours.hasCell(target.variant, cell)) return { reason: `density cell ${cell.replace(':', ' N=')} was not run for ${target.variant}` };
  const value = ours.get(target.variant, stat.metric, stat.statistic, cell);
  if (!value) {
    const why = target.kind === 'pair' ? `no ${stat.statistic} of ${stat.metric} for ${target.variant} in evidence.csv (declare the comparison in the spec's compare list)` : ours.whyMissing(target.variant, stat.metric, stat.statistic);
    return { reason: why };
  }
  return { matched: { published: p, variant: target.variant, metric: stat.metric, statistic: stat.statistic, cell, ours: value } };
}

function withRatios(rows: Omit<MatchedRow, 'reference' | 'publishedRatio' | 'ourRatio'>[], mapping: Mapping): MatchedRow[] {
  return rows.map((row) => {
    const refs = mapping.topics[row.published.topic]?.reference ?? [];
    const ratioable = ['P50', 'P95_reference', 'low_cluster_median', 'high_cluster_median'].includes(row.statistic);
    for (const refBackend of refs) {
      if (!ratioable || refBackend === row.published.backend) break;
      const ref = rows.find((r) => r.published.topic === row.published.topic && r.published.backend === refBackend && r.published.statistic === row.published.statistic && r.cell === row.cell);
      if (!ref || !ref.ours.value || !ref.published.value || row.ours.value === null || row.published.value === null) continue;
      return { ...row, reference: ref.variant, publishedRatio: row.published.value / ref.published.value, ourRatio: row.ours.value / ref.ours.value };
    }
    return { ...row, reference: null, publishedRatio: null, ourRatio: null };
  });
}

/** The ratio slower / faster from the analysis's own comparison machinery (paired by block, as comparisons.csv). */
function ratioOf(bundle: Bundle, metric: string, slower: string, faster: string) {
  const outcome = compareArms(bundle.analysis, slower, faster, metric);
  if (!outcome?.result) return null;
  return { result: outcome.result, n: outcome.design === 'paired blocks' ? `${outcome.nPairs} paired blocks` : `${outcome.candidate.observations.length} vs ${outcome.control.observations.length}` };
}

function publishedValue(published: PublishedRow[], mapping: Mapping, topic: string, backend: string, metric: string): number | null {
  const rows = published.filter((p) => p.topic === topic && p.backend === backend && p.value !== null && mapping.statistics[p.statistic]?.metric === metric);
  const p50 = latest(rows.filter((p) => mapping.statistics[p.statistic]?.statistic === 'P50'));
  const low = latest(rows.filter((p) => mapping.statistics[p.statistic]?.statistic === 'low_cluster_median'));
  return (p50 ?? low)?.value ?? null;
}

function checkOrdering(o: Mapping['orderings'][number], bundle: Bundle, arms: string[], mapping: Mapping, published: PublishedRow[]): OrderingCheck {
  const pubFaster = publishedValue(published, mapping, o.topic, o.faster, o.metric);
  const pubSlower = publishedValue(published, mapping, o.topic, o.slower, o.metric);
  const base: OrderingCheck = { id: o.id, claim: o.claim, faster: o.faster, slower: o.slower, publishedRatio: pubFaster && pubSlower ? pubSlower / pubFaster : null, ourRatio: null, ourLow: null, ourHigh: null, n: '', method: '', status: 'not checked', reason: '' };
  const experiment = mapping.topics[o.topic]?.experiment;
  if (experiment !== bundle.resolved.spec.experiment) return { ...base, reason: needsRun(experiment ?? o.topic, bundle) };
  const faster = resolveTarget(mapping.backends[o.faster], arms, o.faster, mapping);
  const slower = resolveTarget(mapping.backends[o.slower], arms, o.slower, mapping);
  if (faster.kind !== 'arm') return { ...base, reason: faster.kind === 'none' ? faster.reason : 'not an arm' };
  if (slower.kind !== 'arm') return { ...base, reason: slower.kind === 'none' ? slower.reason : 'not an arm' };
  const ratio = ratioOf(bundle, o.metric, slower.variant, faster.variant);
  if (!ratio) return { ...base, reason: `no ok samples of ${o.metric} for ${slower.variant} or ${faster.variant}` };
  if (ratio.result.ratio === null || !ratio.result.ratio_ci) return { ...base, n: ratio.n, method: ratio.result.method, reason: `ratio undefined: ${ratio.result.ratio_note}` };
  const ourRatio = ratio.result.ratio;
  const { low, high } = ratio.result.ratio_ci.percentile;
  if (Math.min(ratio.result.n_candidate, ratio.result.n_control) < MIN_ORDERING_SAMPLES) {
    return { ...base, ourRatio: ratio.result.ratio, ourLow: low, ourHigh: high, n: ratio.n, method: ratio.result.method, status: 'too few samples', reason: `need ≥ ${MIN_ORDERING_SAMPLES} ok samples per arm to judge the ordering` };
  }
  const needed = o.min_ratio ?? 1;
  // Significant when the whole 95% CI is on one side of the required ratio (1, or min_ratio for a "≪" claim).
  const status: OrderingStatus =
    low > needed ? 'holds' : high < needed ? (high < 1 ? 'reversed' : 'does not hold') : ourRatio > needed ? 'holds (not significant)' : ourRatio < 1 ? 'reversed (not significant)' : 'does not hold';
  return {
    ...base,
    ourRatio: ratio.result.ratio,
    ourLow: low,
    ourHigh: high,
    n: ratio.n,
    method: ratio.result.method,
    status,
    reason: `${slower.variant} / ${faster.variant} ratio of medians${o.min_ratio ? `, must exceed ${o.min_ratio}` : ', must exceed 1'}`,
  };
}

/**
 * Whether our cell is at capacity (every planned batch full), or null when the batches the journal
 * holds cannot tell: all recorded ones are full but some planned ones are not recorded yet (a run
 * interrupted before its resume). Those batches have not failed; one recorded non-full batch decides.
 */
function ourCapacity(m: MatchedRow, ours: OurEvidence): { full: boolean | null; recorded: number | null } {
  const recorded = ours.get(m.variant, 'recorded_batches', 'count', m.cell)?.value ?? null;
  const planned = m.ours.n;
  const full = m.ours.value ?? 0;
  if (planned === null) return { full: null, recorded };
  if (recorded !== null && recorded < planned && full === recorded) return { full: null, recorded };
  return { full: full === planned, recorded };
}

function capacityChecks(matched: MatchedRow[], mapping: Mapping, ours: OurEvidence): OrderingCheck[] {
  const spec = mapping.capacity_cells;
  if (!spec) return [];
  return matched
    .filter((m) => spec.topics.includes(m.published.topic) && m.published.statistic === spec.statistic)
    .map((m) => {
      const pubFull = m.published.n !== null && m.published.value === m.published.n;
      const our = ourCapacity(m, ours);
      const n = concurrencyOf(m.published.limits);
      const recordedNote = our.recorded !== null && m.ours.n !== null && our.recorded < m.ours.n ? `; ${our.recorded} of ${m.ours.n} planned batches recorded` : '';
      return {
        id: `capacity-${m.published.topic}-${m.published.backend}-${n}`,
        claim: `${m.published.backend} at N=${n} (${m.published.topic}): published ${m.published.value}/${m.published.n} full batches → ${pubFull ? 'capacity holds' : 'over capacity'}`,
        faster: m.published.backend,
        slower: '',
        publishedRatio: m.published.n ? (m.published.value ?? 0) / m.published.n : null,
        ourRatio: m.ours.n ? (m.ours.value ?? 0) / m.ours.n : null,
        ourLow: null,
        ourHigh: null,
        n: `${m.ours.n ?? '?'} batches`,
        method: 'full valid no-OOM batches / planned batches',
        status: our.full === null ? 'not checked' : pubFull === our.full ? 'holds' : 'reversed',
        reason: our.full === null
          ? `ours ${m.ours.value}/${our.recorded ?? '?'} recorded batches full (${m.variant})${recordedNote}: the rest not run yet (resume the bundle)`
          : `ours ${m.ours.value}/${m.ours.n} full batches (${m.variant})${recordedNote}`,
      } satisfies OrderingCheck;
    });
}

export function reproduce(bundle: Bundle, published: PublishedRow[], mapping: Mapping): Reproduction {
  const ours = new OurEvidence(bundle);
  // Arms of the run (spec and journal) plus every evidence variant that is not a comparison ("a minus b").
  const arms = [...new Set([...bundle.analysis.arms, ...bundle.resolved.spec.arms.map((a) => armLabel({ backend: a.backend, variant: a.variant ?? null, label: a.label })), ...[...ours.variants].filter((v) => !v.includes(' minus '))])];
  const matchedBase: Omit<MatchedRow, 'reference' | 'publishedRatio' | 'ourRatio'>[] = [];
  const unmatched: UnmatchedRow[] = [];
  for (const p of published) {
    const joined = joinRow(p, bundle, ours, arms, mapping);
    if (joined.matched) matchedBase.push(joined.matched);
    else unmatched.push({ published: p, reason: joined.reason ?? 'unknown' });
  }
  const matched = withRatios(matchedBase, mapping);
  const orderings = [...mapping.orderings.map((o) => checkOrdering(o, bundle, arms, mapping, published)), ...capacityChecks(matched, mapping, ours)];
  return { runId: bundle.resolved.run_id, experiment: bundle.resolved.spec.experiment, matched, unmatched, orderings };
}
