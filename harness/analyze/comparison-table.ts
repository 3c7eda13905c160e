/**
 * comparisons.csv (public contract) and comparisons-detail.csv. Pairing follows the plan's blocks:
 * a block where either arm has no valid value is dropped from the paired sample (and counted), so
 * a failure never becomes a zero and never unpairs the remaining rounds.
 * What a value stands for comes from the kind (metric-design.ts): a per-cell or per-run metric is
 * compared over its units, and with fewer than two on a side gets no interval and no verdict; a
 * score (a reward) is compared over matched pairs (paired proportions when 0/1).
 */
import { compareMedians, comparePairedScores, median, type MedianComparison, type PairedScoreComparison } from '../stats/index.ts';
import { designOf, isReplicated, MIN_UNITS_FOR_INTERVAL, noIntervalText, replicatesOf, type MetricDesign } from './metric-design.ts';
import type { FamilyMember } from './comparison-family.ts';
import type { ArmMetricData } from './arm-metric.ts';
import type { Cell } from '../bundle/csv.ts';
import type { TableContext } from './summary-table.ts';

export const COMPARISONS_HEADER = [
  'batch', 'benchmark_id', 'mode', 'candidate', 'control', 'metric', 'unit', 'n', 'difference_ms', 'ci95_low_ms',
  'ci95_high_ms', 'conclusion', 'confidence_method', 'ratio', 'ratio_ci95_low', 'ratio_ci95_high',
] as const;

export const COMPARISONS_DETAIL_HEADER = [
  'batch', 'benchmark_id', 'mode', 'candidate', 'control', 'metric', 'unit', 'design', 'n', 'n_candidate', 'n_control',
  'n_pairs', 'dropped_blocks', 'candidate_median_all_valid', 'control_median_all_valid', 'difference', 'diff_percentile_low',
  'diff_percentile_high', 'diff_bca_low', 'diff_bca_high', 'ratio', 'ratio_percentile_low', 'ratio_percentile_high',
  'ratio_bca_low', 'ratio_bca_high', 'hodges_lehmann', 'signed_rank_p', 'mann_whitney_p', 'underpowered',
  'underpowered_fraction', 'conclusion', 'resamples', 'prng', 'seed', 'seed_id', 'method', 'note',
  'rank_test_p', 'family', 'family_size', 'holm_p', 'verdict_survives_holm',
] as const;

/** Used when a comparison cannot be computed (an arm has no valid value): a state, never a number. */
export const INSUFFICIENT_DATA = 'insufficient data';

export interface ComparisonOptions {
  resamples: number;
  seedId: string;
  underpoweredFraction: number;
}

export interface ComparisonOutcome {
  candidate: ArmMetricData;
  control: ArmMetricData;
  /** `matched pairs`: a score compared over the kind's pairing keys (KindAnalysis.pairOf). */
  design: 'paired blocks' | 'independent' | 'matched pairs';
  /** What one value of the metric stands for (the kind's declaration). */
  metricDesign: MetricDesign;
  /** n written to comparisons.csv: the pairs when paired, else the smaller arm's n (the binding one). */
  n: number;
  nPairs: number | null;
  droppedBlocks: number | null;
  result: MedianComparison | null;
  /** A score metric's paired comparison (then `result` is null). */
  score: PairedScoreComparison | null;
  /** Set instead of an interval when a per-cell or per-run metric has fewer than two units on a side ("n = 1 per run, no interval"). */
  noInterval: string | null;
  seedId: string;
  note: string;
}

/** The conclusion column of a comparison: the verdict of whichever comparison ran, else why none did. */
export function conclusionOf(o: ComparisonOutcome): string {
  return o.result?.conclusion ?? o.score?.conclusion ?? o.noInterval ?? INSUFFICIENT_DATA;
}

/** The difference and its 95% interval, whichever comparison ran (null cells when none did). */
export function differenceOf(o: ComparisonOutcome): { value: number | null; low: number | null; high: number | null } {
  if (o.result) return { value: o.result.difference, low: o.result.difference_ci.percentile.low, high: o.result.difference_ci.percentile.high };
  if (o.score) return { value: o.score.difference, low: o.score.ci?.low ?? null, high: o.score.ci?.high ?? null };
  return { value: null, low: null, high: null };
}

function uniqueBlocks(data: ArmMetricData): Map<string, number> | null {
  const map = new Map<string, number>();
  for (const o of data.observations) {
    if (o.block === null || map.has(o.block)) return null;
    map.set(o.block, o.value);
  }
  return map;
}

interface Pairing {
  candidate: number[];
  control: number[];
  paired: boolean;
  dropped: number | null;
  note: string;
}

function pairByBlock(candidate: ArmMetricData, control: ArmMetricData): Pairing {
  const c = uniqueBlocks(candidate);
  const k = uniqueBlocks(control);
  const independent = (note: string): Pairing => ({
    candidate: candidate.observations.map((o) => o.value),
    control: control.observations.map((o) => o.value),
    paired: false,
    dropped: null,
    note,
  });
  if (!c || !k) return independent('no one-value-per-block pairing available: independent resampling');
  // Blocks in ascending numeric order when numeric, so the pair order (hence the bytes) is stable.
  const common = [...c.keys()].filter((b) => k.has(b)).sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : a > b ? 1 : 0));
  if (common.length === 0) return independent('no block holds a valid value for both arms: independent resampling');
  const allBlocks = new Set([...c.keys(), ...k.keys()]);
  // One planned trial per block and arm here, so `planned` also counts the blocks where BOTH arms failed (absent from either map).
  const dropped = Math.max(allBlocks.size, candidate.planned, control.planned) - common.length;
  return {
    candidate: common.map((b) => c.get(b)!),
    control: common.map((b) => k.get(b)!),
    paired: true,
    dropped,
    note: dropped > 0 ? `${dropped} block(s) dropped: a valid value was missing for one or both arms` : '',
  };
}

/** Score pairs matched by the kind's key (the block when it gives none); an arm whose keys repeat cannot be matched. */
function pairByKey(candidate: ArmMetricData, control: ArmMetricData): { candidate: number[]; control: number[]; unmatched: number } | null {
  const keyed = (data: ArmMetricData): Map<string, number> | null => {
    const map = new Map<string, number>();
    for (const o of data.observations) {
      const key = o.pair ?? o.block;
      if (key === null || map.has(key)) return null;
      map.set(key, o.value);
    }
    return map;
  };
  const c = keyed(candidate);
  const k = keyed(control);
  if (!c || !k) return null;
  const common = [...c.keys()].filter((key) => k.has(key)).sort();
  return { candidate: common.map((key) => c.get(key)!), control: common.map((key) => k.get(key)!), unmatched: new Set([...c.keys(), ...k.keys()]).size - common.length };
}

function scoreComparison(candidate: ArmMetricData, control: ArmMetricData, options: ComparisonOptions, base: Omit<ComparisonOutcome, 'design' | 'n' | 'nPairs' | 'droppedBlocks' | 'note'>): ComparisonOutcome {
  const pairs = pairByKey(candidate, control);
  if (!pairs || pairs.candidate.length === 0) {
    const note = pairs ? 'no attempt is matched in both arms: no paired comparison' : 'a pairing key repeats within an arm: attempts cannot be matched, no paired comparison';
    return { ...base, design: 'matched pairs', n: 0, nPairs: 0, droppedBlocks: pairs?.unmatched ?? null, note };
  }
  const score = comparePairedScores(pairs.candidate, pairs.control, { resamples: options.resamples, seedId: options.seedId });
  return {
    ...base,
    design: 'matched pairs',
    n: pairs.candidate.length,
    nPairs: pairs.candidate.length,
    droppedBlocks: pairs.unmatched,
    score,
    note: pairs.unmatched > 0 ? `${pairs.unmatched} unit(s) without a valid counterpart in the other arm left out` : '',
  };
}

export function runComparison(candidate: ArmMetricData, control: ArmMetricData, options: ComparisonOptions): ComparisonOutcome {
  const metricDesign = designOf(candidate);
  const base = { candidate, control, seedId: options.seedId, metricDesign, result: null, score: null, noInterval: null };
  if (candidate.observations.length === 0 || control.observations.length === 0) {
    return { ...base, design: 'independent', n: 0, nPairs: null, droppedBlocks: null, note: `no valid values (candidate n=${candidate.observations.length}, control n=${control.observations.length})` };
  }
  if (!isReplicated(metricDesign.unit)) {
    // Copies of one per-cell (per-run) value are one observation: compare the units, never the copies.
    const units = Math.min(replicatesOf(candidate).length, replicatesOf(control).length);
    const what = `${candidate.metric} is recorded once per ${metricDesign.unit === 'cell' ? 'cell run' : 'run'}`;
    if (units < MIN_UNITS_FOR_INTERVAL) {
      return { ...base, design: 'independent', n: units, nPairs: null, droppedBlocks: null, noInterval: noIntervalText(units), note: `${what}: values side by side, no interval and no verdict` };
    }
    const reduced = (data: ArmMetricData): ArmMetricData => ({ ...data, observations: replicatesOf(data), design: { ...metricDesign, unit: 'trial' } });
    const outcome = runComparison(reduced(candidate), reduced(control), options);
    return { ...outcome, candidate, control, metricDesign, note: [`${what}: compared over its ${units}+ units, not its copies`, outcome.note].filter(Boolean).join('; ') };
  }
  if (metricDesign.scale === 'score') return scoreComparison(candidate, control, options, base);
  const pairing = pairByBlock(candidate, control);
  const result = compareMedians(
    { candidate: pairing.candidate, control: pairing.control, paired: pairing.paired, resamples: options.resamples, seedId: options.seedId },
    { underpoweredFraction: options.underpoweredFraction },
  );
  return {
    ...base,
    design: pairing.paired ? 'paired blocks' : 'independent',
    n: pairing.paired ? pairing.candidate.length : Math.min(pairing.candidate.length, pairing.control.length),
    nPairs: pairing.paired ? pairing.candidate.length : null,
    droppedBlocks: pairing.dropped,
    result,
    note: pairing.note,
  };
}

/** The identity columns both comparison files start with. */
function comparisonKey(ctx: TableContext, o: ComparisonOutcome): Cell[] {
  return [ctx.batch, ctx.benchmark_id, ctx.mode, o.candidate.arm, o.control.arm, o.candidate.metric, o.candidate.unit];
}

export function comparisonRow(ctx: TableContext, o: ComparisonOutcome): Cell[] {
  const r = o.result;
  const d = differenceOf(o);
  return [
    ...comparisonKey(ctx, o),
    o.n,
    d.value,
    d.low,
    d.high,
    conclusionOf(o),
    r?.method ?? o.score?.method ?? o.note,
    r?.ratio ?? null,
    r?.ratio_ci?.percentile.low ?? null,
    r?.ratio_ci?.percentile.high ?? null,
  ];
}

export function comparisonDetailRow(ctx: TableContext, o: ComparisonOutcome, underpoweredFraction: number, member?: FamilyMember): Cell[] {
  const r = o.result;
  return [
    ...comparisonKey(ctx, o),
    o.design,
    o.n,
    o.candidate.observations.length,
    o.control.observations.length,
    o.nPairs,
    o.droppedBlocks,
    o.candidate.observations.length > 0 ? median(o.candidate.observations.map((x) => x.value)) : null,
    o.control.observations.length > 0 ? median(o.control.observations.map((x) => x.value)) : null,
    differenceOf(o).value,
    differenceOf(o).low,
    differenceOf(o).high,
    r?.difference_ci.bca?.low ?? null,
    r?.difference_ci.bca?.high ?? null,
    r?.ratio ?? null,
    r?.ratio_ci?.percentile.low ?? null,
    r?.ratio_ci?.percentile.high ?? null,
    r?.ratio_ci?.bca?.low ?? null,
    r?.ratio_ci?.bca?.high ?? null,
    r?.hodges_lehmann ?? null,
    r?.signed_rank_p ?? null,
    r?.mann_whitney_p ?? null,
    r?.underpowered ?? null,
    underpoweredFraction,
    conclusionOf(o),
    r?.resamples ?? null,
    r?.prng ?? null,
    r?.seed ?? null,
    o.seedId,
    r?.method ?? o.score?.method ?? null,
    [o.note, ...(r?.notes ?? []), ...(o.score?.notes ?? [])].filter(Boolean).join('; '),
    member?.rankP ?? null,
    member?.family ?? null,
    member?.size ?? null,
    member?.holmP ?? null,
    member?.survives ?? null,
  ];
}
