/**
 * `npm run bench -- stats-oc`: operating characteristics of sandbench's statistical rules, by
 * seeded simulation, printed as ONE table of rates with Wilson 95% intervals (issue 13 acceptance).
 * Every row calls the same pure functions the commands use: compareMedians (stats/analyze/compare),
 * estimateRatioGate + decideCell (the gate's cell), detectClusters (summary), predictedPower (power
 * and the gate's "≈N more blocks"). SB_OC_SCALE=0.5 halves every dataset count for a quick look.
 */
import { createPrng } from '../harness/plan/prng.ts';
import {
  compareMedians,
  decideCell,
  detectClusters,
  estimateRatioGate,
  MEDIAN_SE_FACTOR,
  predictedPower,
  wilsonInterval,
  type GateDesign,
  type GateStatistic,
} from '../harness/stats/index.ts';

const SCALE = Number(process.env.SB_OC_SCALE ?? 1);
const count = (n: number) => Math.max(50, Math.round(n * SCALE));
const RESAMPLES = 1000;
const BASE = 800;

interface Row {
  scenario: string;
  n: string;
  datasets: number;
  measure: string;
  hits: number;
  target: string;
  ok: boolean | null;
  predicted?: number;
}
const rows: Row[] = [];

function gaussianSource(seed: number): () => number {
  const prng = createPrng(seed);
  return () => Math.sqrt(-2 * Math.log(1 - prng.float())) * Math.cos(2 * Math.PI * prng.float());
}

function rate(row: Omit<Row, 'ok'>, check?: (low: number, high: number, p: number) => boolean): void {
  const w = wilsonInterval(row.hits, row.datasets);
  rows.push({ ...row, ok: check ? check(w.low, w.high, row.hits / row.datasets) : null });
}

// A. A/A comparisons: how often does compareMedians give a verdict when nothing differs?
function aaVerdicts(): void {
  for (const n of [2, 3, 4, 6, 10, 20, 60]) {
    const g = gaussianSource(1000 + n);
    const datasets = count(1000);
    let verdicts = 0;
    for (let d = 0; d < datasets; d++) {
      const control: number[] = [];
      const candidate: number[] = [];
      for (let b = 0; b < n; b++) {
        const block = 0.05 * g();
        control.push(BASE * Math.exp(block + 0.1 * g()));
        candidate.push(BASE * Math.exp(block + 0.1 * g()));
      }
      const r = compareMedians({ candidate, control, paired: true, resamples: RESAMPLES, seedId: `oc-aa:${n}:${d}` });
      if (r.conclusion === 'candidate faster' || r.conclusion === 'candidate slower') verdicts++;
    }
    rate({ scenario: 'A/A paired comparison (σ 0.1, block sd 0.05)', n: `${n} pairs`, datasets, measure: 'false verdict', hits: verdicts, target: '≤ 5%' }, (_l, _h, p) => p <= 0.05);
  }
}

interface GateCase {
  design: GateDesign;
  statistic?: GateStatistic;
  sigma: number;
  blocks: number;
  ratio: number;
  threshold: number;
  runOffsetSd?: number;
  baselineRuns?: number;
  /** Fraction of candidate trials made `slowFactor` slower (tail scenario). */
  slowFraction?: number;
  slowFactor?: number;
}

function simulateGate(c: GateCase, datasets: number, seed: number): { regression: number; pass: number; invalid: number } {
  const g = gaussianSource(seed);
  const u = createPrng(seed + 7);
  const out = { regression: 0, pass: 0, invalid: 0 };
  const run = (mu: number, slow: boolean) => {
    const offset = (c.runOffsetSd ?? 0) * g();
    return Array.from({ length: c.blocks }, () => BASE * Math.exp(mu + offset + c.sigma * g()) * (slow && u.float() < (c.slowFraction ?? 0) ? (c.slowFactor ?? 1) : 1));
  };
  for (let d = 0; d < datasets; d++) {
    let candidateRuns: number[][];
    let baselineRuns: number[][];
    if (c.design === 'paired') {
      // One run: both arms in every block, sharing the run offset and a block effect.
      const offset = (c.runOffsetSd ?? 0) * g();
      const base: number[] = [];
      const cand: number[] = [];
      for (let b = 0; b < c.blocks; b++) {
        const block = 0.03 * g();
        base.push(BASE * Math.exp(offset + block + c.sigma * g()));
        cand.push(BASE * c.ratio * Math.exp(offset + block + c.sigma * g()) * (u.float() < (c.slowFraction ?? 0) ? (c.slowFactor ?? 1) : 1));
      }
      candidateRuns = [cand];
      baselineRuns = [base];
    } else {
      baselineRuns = Array.from({ length: c.baselineRuns ?? 1 }, () => run(0, false));
      candidateRuns = [run(Math.log(c.ratio), true)];
    }
    const limit = 1 + c.threshold;
    const e = estimateRatioGate({ statistic: c.statistic ?? 'p50', design: c.design, candidateRuns, baselineRuns, limit, resamples: RESAMPLES, seed: seed * 100_003 + d });
    const decision = decideCell(e, limit, e.pRegression).decision;
    if (decision === 'regression') out.regression++;
    else if (decision === 'pass') out.pass++;
    else if (decision === 'invalid') out.invalid++;
  }
  return out;
}

/** Predicted power from the formula `sandbench power` uses, with the true σ (independent runs: SE = 1.2533·σ·√(2/n)). */
function predicted(c: GateCase, reading: 'pass' | 'regression'): number {
  const se = MEDIAN_SE_FACTOR * c.sigma * Math.sqrt(2 / c.blocks);
  const distance = reading === 'pass' ? Math.log(1 + c.threshold) - Math.log(c.ratio) : Math.log(c.ratio) - Math.log(1 + c.threshold);
  return distance > 0 ? predictedPower({ se, n: c.blocks, distance }) : NaN;
}

function gateGrid(): void {
  let seed = 5000;
  for (const sigma of [0.1, 0.3]) {
    for (const blocks of [20, 60]) {
      for (const ratio of [1.0, 1.05, 1.1, 1.2]) {
        const c: GateCase = { design: 'independent', sigma, blocks, ratio, threshold: 0.05 };
        const datasets = count(ratio === 1.05 ? 800 : 400);
        const r = simulateGate(c, datasets, seed++);
        const label = `gate, one run per side (σ ${sigma}, true ratio ${ratio.toFixed(2)}, threshold 5%)`;
        if (ratio === 1.05) {
          rate({ scenario: label, n: `${blocks} blocks`, datasets, measure: 'regression at the limit', hits: r.regression, target: '≤ 2.5%' }, (_l, _h, p) => p <= 0.025);
        } else if (ratio === 1.0) {
          rate({ scenario: label, n: `${blocks} blocks`, datasets, measure: 'false regression', hits: r.regression, target: '≤ 2.5%' }, (_l, _h, p) => p <= 0.025);
          rate({ scenario: label, n: `${blocks} blocks`, datasets, measure: 'pass (power check)', hits: r.pass, target: 'predicted ± 5 pts', predicted: predicted(c, 'pass') }, (_l, _h, p) => Math.abs(p - predicted(c, 'pass')) <= 0.05);
        } else {
          rate({ scenario: label, n: `${blocks} blocks`, datasets, measure: 'regression (power check)', hits: r.regression, target: 'predicted ± 5 pts', predicted: predicted(c, 'regression') }, (_l, _h, p) => Math.abs(p - predicted(c, 'regression')) <= 0.05);
        }
      }
    }
  }
}

function runOffsets(): void {
  let seed = 7000;
  for (const offset of [0, 0.02, 0.04]) {
    for (const [design, baselineRuns, label] of [
      ['independent', 1, 'one run per side, no calibration'],
      ['hierarchical', 3, 'cross-run, 3 baseline runs'],
      ['hierarchical', 5, 'cross-run, 5 baseline runs'],
      ['paired', 1, 'interleaved A/B'],
    ] as const) {
      const c: GateCase = { design, sigma: 0.1, blocks: 60, ratio: 1.02, threshold: 0.02, runOffsetSd: offset, baselineRuns };
      const datasets = count(design === 'hierarchical' ? 300 : 600);
      const r = simulateGate(c, datasets, seed++);
      const scenario = `run offset sd ${offset}, true ratio 1.02 at a 2% limit, σ 0.1: ${label}`;
      const guarded = design !== 'independent';
      rate({ scenario, n: '60 blocks', datasets, measure: 'regression at the limit', hits: r.regression, target: guarded ? '≤ 2.5%' : 'not covered (warned)' }, guarded ? (_l, _h, p) => p <= 0.025 : undefined);
      rate({ scenario, n: '60 blocks', datasets, measure: 'pass at the limit', hits: r.pass, target: guarded ? '≤ 2.5%' : 'not covered (warned)' }, guarded ? (_l, _h, p) => p <= 0.025 : undefined);
    }
  }
}

function interleavedPower(): void {
  const c: GateCase = { design: 'paired', sigma: 0.1, blocks: 20, ratio: 1.2, threshold: 0.05 };
  const datasets = count(500);
  const r = simulateGate(c, datasets, 9001);
  rate({ scenario: 'interleaved A/B, true ratio 1.20, σ 0.1, threshold 5%', n: '20 blocks', datasets, measure: 'regression (power)', hits: r.regression, target: '≥ 90%' }, (_l, _h, p) => p >= 0.9);
  const aa: GateCase = { ...c, ratio: 1.0 };
  const a = simulateGate(aa, datasets, 9002);
  rate({ scenario: 'interleaved A/B, A/A, σ 0.1, threshold 5%', n: '20 blocks', datasets, measure: 'false regression', hits: a.regression, target: '≤ 2.5%' }, (_l, _h, p) => p <= 0.025);
}

function tails(): void {
  const base: GateCase = { design: 'independent', sigma: 0.05, blocks: 60, ratio: 1.0, threshold: 0.05, slowFraction: 0.4, slowFactor: 2.2 };
  const datasets = count(300);
  const p50 = simulateGate({ ...base, statistic: 'p50' }, datasets, 9100);
  rate({ scenario: 'candidate with 40% of trials 2.2× slower, σ 0.05, gate P50', n: '60 blocks', datasets, measure: 'exit 3 "inspect clusters"', hits: p50.invalid, target: '≥ 90% (never silent)' }, (_l, _h, p) => p >= 0.9);
  const p95 = simulateGate({ ...base, statistic: 'p95' }, datasets, 9101);
  rate({ scenario: 'candidate with 40% of trials 2.2× slower, σ 0.05, gate --statistic p95', n: '60 blocks', datasets, measure: 'regression', hits: p95.regression, target: '≥ 90%' }, (_l, _h, p) => p >= 0.9);
}

function clusters(): void {
  for (const n of [20, 30, 60]) {
    for (const sigma of [0.3, 0.5]) {
      const g = gaussianSource(9200 + n + sigma * 10);
      const datasets = count(2000);
      let split = 0;
      for (let d = 0; d < datasets; d++) if (detectClusters(Array.from({ length: n }, () => BASE * Math.exp(sigma * g()))).distribution === 'separated-clusters') split++;
      rate({ scenario: `cluster rule, unimodal lognormal σ ${sigma}`, n: `n=${n} per arm`, datasets, measure: 'false split', hits: split, target: '≤ 5%' }, (_l, _h, p) => p <= 0.05);
    }
    const g = gaussianSource(9300 + n);
    const u = createPrng(9400 + n);
    const datasets = count(2000);
    let split = 0;
    for (let d = 0; d < datasets; d++) {
      const values = Array.from({ length: n }, () => BASE * Math.exp(0.1 * g()) * (u.float() < 0.3 ? 2.2 : 1));
      if (detectClusters(values).distribution === 'separated-clusters') split++;
    }
    rate({ scenario: 'cluster rule, 70/30 mixture, modes 2.2× apart, σ 0.1 per mode', n: `n=${n} per arm`, datasets, measure: 'flagged', hits: split, target: '≥ 90%' }, (_l, _h, p) => p >= 0.9);
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export async function runStatsOcBench(): Promise<void> {
  const started = Date.now();
  aaVerdicts();
  gateGrid();
  runOffsets();
  interleavedPower();
  tails();
  clusters();
  const header = ['scenario', 'n', 'datasets', 'measure', 'rate [Wilson 95%]', 'predicted', 'target', 'meets'];
  const body = rows.map((r) => {
    const w = wilsonInterval(r.hits, r.datasets);
    return [r.scenario, r.n, String(r.datasets), r.measure, `${pct(r.hits / r.datasets)} [${pct(w.low)}, ${pct(w.high)}]`, r.predicted === undefined || Number.isNaN(r.predicted) ? '' : pct(r.predicted), r.target, r.ok === null ? '—' : r.ok ? 'yes' : 'NO'];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(`statistical operating characteristics (seeded; ${RESAMPLES} bootstrap resamples per interval; SB_OC_SCALE=${SCALE})`);
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
  const failed = rows.filter((r) => r.ok === false).length;
  console.log(`\n${rows.length} rows, ${failed} outside target; ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
