/**
 * What a branch-point run adds to the replay analysis (issue 19, item 4), as a PURE function of the
 * journal: `branch-point.csv`, one row per backend × way (replay, fork, scratch):
 *
 *   backend, way, how, planned, ok, failed, invalid, failure_categories,
 *   n, p50_ms, ci95_low_ms, ci95_high_ms, mean_ms, min_ms, max_ms,   — branch_point_ms of ok trials
 *   state_judged, state_matches,                                      — workspace digest = ground truth
 *   checkpoint_ms_p50, preserves, scope, cohort
 *
 * (P50 CI: distribution-free order statistics, none below n = 6; `state_judged` counts every trial
 * whose digest was taken, failed or not), `branch_point_cost` evidence rows and the report's table
 * of the three ways side by side. Paired ratios between ways come from the spec's `compare:` entries
 * (comparisons.csv, the harness's paired-block bootstrap), not from here.
 */
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../../../harness/analyze/evidence.ts';
import type { AnalysisInput, KindExtensionOutput } from '../../../../harness/analyze/kind-analysis.ts';
import type { Table } from '../../../../harness/analyze/table.ts';
import { toCsv, type Cell } from '../../../../harness/bundle/csv.ts';
import type { TrialRecord } from '../../../../harness/journal/trial-record.ts';
import { medianOrderStatisticCi, summarize } from '../../../../harness/stats/index.ts';

export const BRANCH_POINT_FILE = 'branch-point.csv';
export const BRANCH_POINT_HEADER = [
  'backend', 'way', 'how', 'planned', 'ok', 'failed', 'invalid', 'failure_categories',
  'n', 'p50_ms', 'ci95_low_ms', 'ci95_high_ms', 'mean_ms', 'min_ms', 'max_ms',
  'state_judged', 'state_matches', 'checkpoint_ms_p50', 'preserves', 'scope', 'cohort',
] as const;

const WAY_ORDER = ['replay', 'fork', 'scratch'];
const HOW: Record<string, string> = {
  replay: 'prefix calls re-executed in a fresh sandbox (replay-driver.py)',
  fork: 'child restored from a file checkpoint taken once (the backend\'s checkpoint mechanism)',
  scratch: 'built-in agent runs the prefix live against the scripted model (0 ms service time)',
};

const wayOf = (r: TrialRecord) => String(r.facts.way ?? r.arm.variant ?? '');
const values = (records: readonly TrialRecord[], metric: string) => records.map((r) => r.metrics[metric]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(1));

interface WayRow {
  backend: string;
  way: string;
  records: TrialRecord[];
  ok: TrialRecord[];
  n: number;
  p50: number | null;
  low: number | null;
  high: number | null;
  judged: number;
  matches: number;
}

function wayRows(records: readonly TrialRecord[]): WayRow[] {
  const keys = [...new Set(records.map((r) => `${r.arm.backend}\0${wayOf(r)}`))].sort((a, b) => {
    const [ba, wa] = a.split('\0');
    const [bb, wb] = b.split('\0');
    return ba! === bb! ? WAY_ORDER.indexOf(wa!) - WAY_ORDER.indexOf(wb!) : ba! < bb! ? -1 : 1;
  });
  return keys.map((key) => {
    const [backend, way] = key.split('\0') as [string, string];
    const mine = records.filter((r) => r.arm.backend === backend && wayOf(r) === way);
    const ok = mine.filter((r) => r.outcome === 'ok');
    const times = values(ok, 'branch_point_ms');
    const ci = medianOrderStatisticCi(times);
    const judged = mine.filter((r) => r.validity.branch_point_state_matches !== undefined);
    return { backend, way, records: mine, ok, n: times.length, p50: summarize(times).overall_p50, low: ci?.low ?? null, high: ci?.high ?? null, judged: judged.length, matches: judged.filter((r) => r.validity.branch_point_state_matches === 'pass').length };
  });
}

export function branchPointAnalysis(input: AnalysisInput, records: readonly TrialRecord[], scope: string): KindExtensionOutput {
  const spec = input.resolved.spec;
  const cohort = input.resolved.run_id;
  const rows: Cell[][] = [];
  const evidence: EvidenceRow[] = [];
  const ways = wayRows(records);
  for (const w of ways) {
    const times = values(w.ok, 'branch_point_ms');
    const categories = [...new Set(w.records.filter((r) => r.outcome !== 'ok').map((r) => String(r.failure_category ?? 'unknown')))]
      .map((c) => `${c}:${w.records.filter((r) => r.outcome !== 'ok' && String(r.failure_category ?? 'unknown') === c).length}`).join(' ');
    const summary = summarize(times);
    // one checkpoint per (backend, trajectory), repeated in each of its forks' facts: one value each
    const checkpoint = summarize([...new Map(w.records.filter((r) => typeof r.facts.checkpoint_ms === 'number').map((r) => [r.facts.trajectory_index, r.facts.checkpoint_ms as number])).values()]).overall_p50;
    const preserves = [...new Set(w.records.map((r) => r.facts.preserves).filter((v): v is string => typeof v === 'string'))].join(' ') || null;
    const mean = times.length > 0 ? times.reduce((a, b) => a + b, 0) / times.length : null;
    rows.push([
      w.backend, w.way, HOW[w.way] ?? null, w.records.length, w.ok.length, w.records.filter((r) => r.outcome === 'failed').length, w.records.filter((r) => r.outcome === 'invalid').length, categories || null,
      w.n, w.p50, w.low, w.high, mean, summary.min ?? null, summary.max ?? null,
      w.judged, w.matches, w.way === 'fork' ? checkpoint : null, w.way === 'fork' ? preserves : null, scope, cohort,
    ]);
    const condition = `${conditionOf(spec)}; ${scope}; ${HOW[w.way] ?? w.way}`;
    const limitations = [w.ok.length === w.records.length ? '' : `${w.records.length - w.ok.length} of ${w.records.length} trial(s) failed or invalid (${categories})`, w.way === 'scratch' ? 'scripted model at 0 ms per turn: a real model adds its latency per prefix turn' : ''].filter(Boolean).join('; ');
    if (w.p50 !== null) evidence.push({ scenario: 'historical_context', topic: 'branch_point_cost', source: EVIDENCE_SOURCE, cohort, variant: `${w.backend}:${w.way}`, metric: 'branch_point_ms', statistic: 'P50', n: w.n, value: w.p50, unit: 'ms', condition, limitations });
    evidence.push({ scenario: 'historical_context', topic: 'branch_point_cost', source: EVIDENCE_SOURCE, cohort, variant: `${w.backend}:${w.way}`, metric: 'branch_point_state', statistic: 'digest_matches_count', n: w.judged, value: w.matches, unit: 'count', condition, limitations });
  }
  const backends = [...new Set(ways.map((w) => w.backend))];
  const cell = (backend: string, way: string) => {
    const w = ways.find((x) => x.backend === backend && x.way === way);
    if (!w) return 'not run';
    const time = w.n === 0 ? 'no ok trial' : `${fmt(w.p50)} [${fmt(w.low)}, ${fmt(w.high)}] (n=${w.n})`;
    const failed = w.records.length - w.ok.length;
    return `${time}; state ${w.matches}/${w.judged}${failed > 0 ? `; ${failed} failed/invalid` : ''}`;
  };
  const table: Table = {
    caption: 'Reaching the branch point, per backend: the same prefix state three ways in one interleaved run (branch_point_ms P50 [95% CI], ok trials; state = workspace digest equal to the ground truth)',
    header: ['backend', 'prefix replay', 'file-checkpoint fork', 'prefix from scratch with the model'],
    rows: backends.map((backend) => [backend, ...WAY_ORDER.map((way) => cell(backend, way))]),
    footnote: 'branch_point_ms: replay and scratch from staging the workspace to the state being there (replay: the driver\'s exit; scratch: the agent\'s first model request after the prefix); fork from the restore call to the child\'s first answer. The checkpoint is taken once per (backend, trajectory), outside timing (checkpoint_ms in branch-point.csv). The scripted model answers at once: a real model adds its latency to every prefix turn of the from-scratch way. Paired ratios: comparisons.csv.',
  };
  return { files: new Map([[BRANCH_POINT_FILE, toCsv(BRANCH_POINT_HEADER, rows)]]), evidence, tables: [table] };
}
