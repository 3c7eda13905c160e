/**
 * What a rollout report and the terminal lead with (issue 30), PURE: per cell, completed rollouts/s
 * [95% CI], reward [95% CI], memory per rollout with its method, and the bottleneck; then one
 * sentence per candidate cell against the control arm's cell at the same C and model capacity, and
 * one per candidate for the paired reward comparison. Every number is one rollout-analysis.ts
 * computed (rollout-summary.csv, rollout-reward-deltas.csv); nothing here is a new statistic.
 */
import type { KindLead } from '../../harness/analyze/kind-analysis.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { comparableMemoryMethods, MEMORY_METHODS, type MemoryMethod } from '../../harness/controls/memory-method.ts';
import type { CellSummary, RewardDelta } from './rollout-analysis.ts';
import { memoryText } from './rollout-memory.ts';

const num = (value: number | null | undefined, digits: number) => (value === null || value === undefined ? '–' : value.toFixed(digits));
const withCi = (value: number | null, ci: { low: number; high: number } | null, digits: number) => `${num(value, digits)}${ci ? ` [${ci.low.toFixed(digits)}, ${ci.high.toFixed(digits)}]` : ''}`;
const model = (s: CellSummary) => `${s.slots}×${s.baseMs}ms${s.perTokenMs > 0 ? `+${s.perTokenMs}ms/token` : ''}`;
const coordinates = (s: CellSummary) => `${s.concurrency}|${s.slots}|${s.baseMs}|${s.perTokenMs}`;
const mib = (bytes: number | null) => (bytes === null ? '–' : (bytes / 1048576).toFixed(1));

function leadTable(summaries: readonly CellSummary[]): Table {
  return {
    caption: 'Rollouts per cell: completed rollouts/s, reward, memory per rollout (P50, with its method), bottleneck',
    header: ['arm', 'C', 'model', 'rollouts/s [95% CI]', 'reward [95% CI]', 'memory/rollout', 'bottleneck', 'completed/planned'],
    rows: summaries.map((s) => [
      s.arm, String(s.concurrency), model(s), s.throughput === null && s.noDataReason ? `– (no data: ${s.noDataReason})` : withCi(s.throughput, s.throughputCi, 3), withCi(s.reward, s.rewardCi, 2), memoryText(s.memory), s.bottleneck ?? '–', `${s.completed}/${s.planned}`,
    ]),
    footnote: 'CIs: rollouts/s, bootstrap over equal time windows; reward, Wilson (0/1) or bootstrap. Memory methods: rollout-summary.csv',
  };
}

function memorySentence(candidate: CellSummary, control: CellSummary): string {
  const a = candidate.memory;
  const b = control.memory;
  const known = (m: string): m is MemoryMethod => (MEMORY_METHODS as readonly string[]).includes(m);
  if (a.p50Bytes === null || b.p50Bytes === null) return 'memory: no figure on both sides';
  if (!known(a.method) || !known(b.method) || !comparableMemoryMethods(a.method, b.method)) return `memory not compared: measured differently (${a.method} against ${b.method})`;
  return `memory ${mib(a.p50Bytes)} against ${mib(b.p50Bytes)} MiB per rollout (P50, ${a.method}, n = ${a.n}, ${b.n})`;
}

function cellSentence(candidate: CellSummary, control: CellSummary): string {
  const ratio = candidate.throughput !== null && control.throughput ? `${(candidate.throughput / control.throughput).toFixed(2)}×, ` : '';
  const a = candidate.throughputCi;
  const b = control.throughputCi;
  // A window bootstrap over a few equal windows can return a zero-width interval: it claims no separation.
  const apart = !a || !b ? 'no interval on one side' : a.low === a.high || b.low === b.high ? 'an interval of zero width: no separation claimed' : a.low > b.high || a.high < b.low ? 'intervals apart' : 'intervals overlap';
  const bottleneck = candidate.bottleneck === control.bottleneck ? `both ${candidate.bottleneck ?? '–'}` : `${candidate.bottleneck ?? '–'} against ${control.bottleneck ?? '–'}`;
  return `At C=${candidate.concurrency} (model ${model(candidate)}): ${candidate.arm} ${withCi(candidate.throughput, candidate.throughputCi, 3)} rollouts/s against ${withCi(control.throughput, control.throughputCi, 3)} for ${control.arm} (${ratio}${apart}); ${memorySentence(candidate, control)}; ${bottleneck}.`;
}

function rewardSentence(delta: RewardDelta): string {
  const c = delta.comparison;
  if (!c) return `Reward: ${delta.candidate} and ${delta.control} share no completed attempt, so no paired comparison.`;
  const test = c.p == null ? '' : `, ${c.design === 'paired proportions' ? 'McNemar exact' : 'signed-rank'} p ${c.p.toPrecision(2)}`;
  return `Reward, ${delta.pairs} paired attempts: ${delta.candidate} ${num(c.candidateMean, 2)} against ${num(c.controlMean, 2)} for ${delta.control}, difference ${withCi(delta.delta, delta.ci, 2)}${test}: ${c.conclusion}.`;
}

/** The control is the first arm with a cell; each other arm's cell is compared with the control's cell at the same coordinates. */
export function rolloutLead(summaries: readonly CellSummary[], deltas: readonly RewardDelta[], armOrder: readonly string[]): KindLead {
  const arms = armOrder.filter((arm) => summaries.some((s) => s.arm === arm));
  const control = arms[0];
  const rank = (s: CellSummary) => (arms.includes(s.arm) ? arms.indexOf(s.arm) : arms.length);
  const ordered = [...summaries].sort((x, y) => rank(x) - rank(y) || x.concurrency - y.concurrency || x.slots - y.slots || x.baseMs - y.baseMs);
  const sentences: string[] = [];
  for (const candidate of ordered.filter((s) => s.arm !== control)) {
    const base = summaries.find((s) => s.arm === control && coordinates(s) === coordinates(candidate));
    if (base) sentences.push(cellSentence(candidate, base));
  }
  sentences.push(...deltas.map(rewardSentence));
  if (sentences.length === 0) sentences.push(control ? `One arm (${control}): nothing to compare it with.` : 'No cell completed an attempt.');
  return { table: leadTable(ordered), sentences };
}
