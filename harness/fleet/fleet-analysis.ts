/**
 * The host-as-a-block analysis of a merged fleet bundle: per-host summaries, every comparison within
 * each host (the ordinary paired-block bootstrap on that host's blocks), and one combined estimate
 * per comparison from a stratified bootstrap across hosts. Timings from different hosts are never
 * pooled into one median here. Pure: resolved spec + journal records in, file name → CSV out.
 */
import { armLabel, type TrialRecord } from '../journal/trial-record.ts';
import { armOrder, collectArmMetrics, latestPerTrial, metricOrder, type ArmMetricData } from '../analyze/arm-metric.ts';
import { comparisonRequests } from '../analyze/analyze-records.ts';
import { INSUFFICIENT_DATA, runComparison } from '../analyze/comparison-table.ts';
import { toCsv, type Cell } from '../bundle/csv.ts';
import { BUNDLE_FILES } from '../bundle/layout.ts';
import { SUMMARY_HEADER, summarizeArmMetric, summaryRow } from '../analyze/summary-table.ts';
import type { ResolvedSpec } from '../bundle/schemas.ts';
import { seedFromString } from '../plan/prng.ts';
import { stratifiedBootstrap, type Stratum } from '../stats/stratified-bootstrap.ts';
import { insufficientNote, MIN_PAIRS } from '../stats/minimum-n.ts';
import { median } from '../stats/quantile.ts';

export const FLEET_FILES = { perHostSummary: BUNDLE_FILES.perHostSummary, comparisons: BUNDLE_FILES.fleetComparisons } as const;

/** Journal facts merge stamps on every trial of a fleet bundle. */
export const HOST_FACT = 'fleet_host';
export const SHARD_FACT = 'fleet_shard';

export const PER_HOST_SUMMARY_HEADER = ['host', ...SUMMARY_HEADER] as const;

export const FLEET_COMPARISONS_HEADER = [
  'scope', 'host', 'hosts', 'candidate', 'control', 'metric', 'unit', 'n', 'difference_ms', 'ci95_low_ms', 'ci95_high_ms',
  'ratio', 'ratio_ci95_low', 'ratio_ci95_high', 'conclusion', 'confidence_method', 'note',
] as const;

/**
 * Below this many paired blocks on a host, percentile bootstrap intervals are too narrow (narrowness
 * bias and poor coverage for small n: Hesterberg 2015, "What teachers should know about the
 * bootstrap", §5): the rows stay, flagged, never dropped.
 */
export const FEW_BLOCKS = 10;

export function hostOf(record: TrialRecord): string {
  const host = record.facts[HOST_FACT];
  if (typeof host !== 'string' || host.length === 0) throw new Error(`trial ${record.trial_id}: no ${HOST_FACT} fact (not a merged fleet bundle; run sandbench merge)`);
  return host;
}

function hostsOf(records: readonly TrialRecord[]): string[] {
  return [...new Set(records.map(hostOf))].sort();
}

/** The same reading of the interval as comparisons.csv (harness/stats/compare.ts): lower is faster. */
function conclude(low: number, high: number): string {
  if (high < 0) return 'candidate faster';
  if (low > 0) return 'candidate slower';
  return 'no detected difference';
}

/**
 * Blocks where both arms hold a valid value, in block order (pairing as comparisons.csv does). A
 * block with several values of one arm (kinds with several trials per arm and block, e.g. density
 * batches, isolation placements) contributes the median of all of them — never just the last one
 * recorded — and `merged` counts such blocks so the note can say so.
 */
export function pairedBlocks(candidate: ArmMetricData, control: ArmMetricData): { candidate: number[]; control: number[]; merged: number } {
  const byBlock = (data: ArmMetricData) => {
    const values = new Map<string, number[]>();
    for (const o of data.observations) if (o.block !== null) values.set(o.block, [...(values.get(o.block) ?? []), o.value]);
    return values;
  };
  const c = byBlock(candidate);
  const k = byBlock(control);
  const common = [...c.keys()].filter((b) => k.has(b)).sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0));
  const merged = common.filter((b) => c.get(b)!.length > 1 || k.get(b)!.length > 1).length;
  return { candidate: common.map((b) => median(c.get(b)!)), control: common.map((b) => median(k.get(b)!)), merged };
}

function hostNote(pairingNote: string, n: number, underpowered: boolean): string {
  return [pairingNote, n < FEW_BLOCKS ? `fewer than ${FEW_BLOCKS} blocks: the interval is likely too narrow` : '', underpowered ? 'underpowered: CI half-width above the spec\'s underpowered_fraction of the estimate' : '']
    .filter(Boolean)
    .join('; ');
}

export interface FleetAnalysisInput {
  resolved: ResolvedSpec;
  records: readonly TrialRecord[];
}

export function analyzeFleet(input: FleetAnalysisInput): Map<string, string> {
  const { resolved } = input;
  const { spec } = resolved;
  const records = latestPerTrial(input.records);
  const hosts = hostsOf(records);
  const specArms = resolved.plan_arms ?? spec.arms.map((a) => armLabel({ backend: a.backend, variant: a.variant ?? null, label: a.label }));
  const arms = armOrder(specArms, records);
  const metrics = metricOrder(records.filter((r) => !r.warmup));
  const perHost = new Map(hosts.map((host) => [host, collectArmMetrics(records.filter((r) => hostOf(r) === host), arms, metrics)]));
  const ctx = { benchmark_id: spec.name, batch: resolved.run_id, mode: spec.experiment };

  const summaryRows: Cell[][] = hosts.flatMap((host) => perHost.get(host)!.map((data) => [host, ...summaryRow(ctx, summarizeArmMetric(data))]));

  const comparisonRows: Cell[][] = [];
  for (const request of comparisonRequests({ resolved }, specArms, metrics)) {
    const find = (host: string, arm: string) => perHost.get(host)!.find((d) => d.arm === arm && d.metric === request.metric);
    const strata: Stratum[] = [];
    const mergedOn: string[] = [];
    let unit = '';
    for (const host of hosts) {
      const candidate = find(host, request.candidate);
      const control = find(host, request.control);
      if (!candidate || !control) continue;
      unit = candidate.unit;
      // Within one host: the ordinary paired-block comparison with comparisons.csv's seed id, so a
      // one-host fleet reproduces comparisons.csv exactly (each host row is read on its own).
      const outcome = runComparison(candidate, control, { resamples: spec.resamples, seedId: `${resolved.run_id}:${request.metric}:${request.candidate}`, underpoweredFraction: spec.underpowered_fraction });
      const r = outcome.result;
      comparisonRows.push([
        'host', host, 1, request.candidate, request.control, request.metric, candidate.unit, outcome.n,
        r?.difference ?? null, r?.difference_ci.percentile.low ?? null, r?.difference_ci.percentile.high ?? null,
        r?.ratio ?? null, r?.ratio_ci?.percentile.low ?? null, r?.ratio_ci?.percentile.high ?? null,
        r?.conclusion ?? INSUFFICIENT_DATA, r?.method ?? outcome.note, r ? hostNote(outcome.note, outcome.n, r.underpowered) : '',
      ]);
      const pairs = pairedBlocks(candidate, control);
      if (pairs.merged > 0) mergedOn.push(`${host} (${pairs.merged})`);
      if (pairs.candidate.length > 0) strata.push({ key: host, candidate: pairs.candidate, control: pairs.control });
    }
    const excluded = hosts.filter((h) => !strata.some((s) => s.key === h));
    const few = strata.filter((s) => s.candidate.length < FEW_BLOCKS).map((s) => s.key);
    const note = [
      excluded.length > 0 ? `hosts without a paired block left out: ${excluded.join(' ')}` : '',
      few.length > 0 ? `fewer than ${FEW_BLOCKS} blocks on ${few.join(' ')}: the interval is likely too narrow` : '',
      mergedOn.length > 0 ? `blocks holding several values of an arm enter as the median of those values: ${mergedOn.join(' ')}` : '',
    ].filter(Boolean).join('; ');
    if (strata.length === 0) {
      comparisonRows.push(['combined', null, 0, request.candidate, request.control, request.metric, unit, 0, null, null, null, null, null, null, INSUFFICIENT_DATA, 'no host has a block with valid values for both arms', note]);
      continue;
    }
    const seedId = `${resolved.run_id}:${request.metric}:${request.candidate}:fleet`;
    const e = stratifiedBootstrap(strata, { resamples: spec.resamples, seed: seedFromString(seedId) });
    const method = `stratified bootstrap over ${strata.length} host(s), blocks resampled within each host; block-weighted mean of per-host differences of medians (ratio: weighted geometric mean), percentile 95% CI; ${e.resamples} resamples; ${e.prng}; seed ${e.seed} (${seedId})`;
    comparisonRows.push([
      'combined', null, strata.length, request.candidate, request.control, request.metric, unit, e.n_blocks,
      e.difference, e.difference_ci.low, e.difference_ci.high, e.ratio, e.ratio_ci?.low ?? null, e.ratio_ci?.high ?? null,
      e.n_blocks < MIN_PAIRS ? INSUFFICIENT_DATA : conclude(e.difference_ci.low, e.difference_ci.high), method,
      [note, e.n_blocks < MIN_PAIRS ? insufficientNote(e.n_blocks, 'paired blocks across hosts') : ''].filter(Boolean).join('; '),
    ]);
  }
  return new Map([
    [FLEET_FILES.perHostSummary, toCsv(PER_HOST_SUMMARY_HEADER, summaryRows)],
    [FLEET_FILES.comparisons, toCsv(FLEET_COMPARISONS_HEADER, comparisonRows)],
  ]);
}
