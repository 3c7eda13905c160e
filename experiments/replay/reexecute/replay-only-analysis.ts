/**
 * What a replay-only run adds to the replay analysis (issue 19), as a PURE function of the journal:
 * `replay-only-summary.csv` (one row per subject × backend × agent: cost with the order-statistic
 * 95% CI of the P50, fidelity counts, failure categories), `replay-calls.csv` (one row per
 * backend × call position: the cost of each kind of call across agents), `tool_replay_cost` and
 * `replay_fidelity` evidence rows, and the report's tables. Timings come from `ok` trials only;
 * fidelity counts from every trial whose calls all ran (a differs-unexpected trial is invalid for
 * timing, but its observations are what fidelity must count); every trial stays in `planned`.
 */
import type { AnalysisInput, KindExtensionOutput } from '../../../harness/analyze/kind-analysis.ts';
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../../harness/analyze/evidence.ts';
import type { Table } from '../../../harness/analyze/table.ts';
import { toCsv, type Cell } from '../../../harness/bundle/csv.ts';
import type { TrialRecord } from '../../../harness/journal/trial-record.ts';
import { medianOrderStatisticCi, summarize, wilsonInterval } from '../../../harness/stats/index.ts';

export const REPLAY_ONLY_SUMMARY_FILE = 'replay-only-summary.csv';
export const REPLAY_CALLS_FILE = 'replay-calls.csv';

export const REPLAY_ONLY_SUMMARY_HEADER = [
  'mode', 'subject', 'backend', 'agent', 'planned', 'ok', 'failed', 'invalid', 'failure_categories',
  'completion_n', 'completion_p50_ms', 'completion_ci95_low_ms', 'completion_ci95_high_ms',
  'per_call_n', 'per_call_p50_ms', 'per_call_ci95_low_ms', 'per_call_ci95_high_ms', 'replay_p50_ms', 'ready_p50_ms',
  'calls_judged', 'identical', 'differs_expected', 'differs_unexpected', 'scope', 'cohort',
  'reward_n', 'reward_mean', 'reward_ci95_low', 'reward_ci95_high',
] as const;

export const REPLAY_CALLS_HEADER = ['subject', 'backend', 'call', 'command', 'fresh', 'n', 'p50_ms', 'ci95_low_ms', 'ci95_high_ms', 'identical', 'differs_expected', 'differs_unexpected'] as const;

interface CallFact {
  index: number;
  verdict: string;
  command: string | null;
  fresh: boolean | null;
  duration_ms: number | null;
}

const callsOf = (r: TrialRecord) => (Array.isArray(r.facts.calls) ? (r.facts.calls as CallFact[]) : []);
const judged = (r: TrialRecord) => r.validity.calls_replayed_in_order === 'pass';
const subjectOf = (r: TrialRecord) => String(r.facts.subject ?? 'sandbench');
const backendOf = (r: TrialRecord) => (subjectOf(r) === 'sandbench' ? r.arm.backend : 'host (its own)');

function countVerdicts(records: readonly TrialRecord[]): { identical: number; expected: number; unexpected: number; judged: number } {
  const c = { identical: 0, expected: 0, unexpected: 0, judged: 0 };
  for (const r of records.filter(judged)) {
    for (const call of callsOf(r)) {
      c.judged++;
      if (call.verdict === 'identical') c.identical++;
      else if (call.verdict === 'differs-expected') c.expected++;
      else c.unexpected++;
    }
  }
  return c;
}

function p50WithCi(values: number[]): [number, number | null, number | null, number | null] {
  const ci = medianOrderStatisticCi(values);
  return [values.length, summarize(values).overall_p50, ci?.low ?? null, ci?.high ?? null];
}

const metricOf = (records: readonly TrialRecord[], metric: string) => records.map((r) => r.metrics[metric]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
const fmt = (v: number | null, digits = 2) => (v === null ? '—' : v.toFixed(digits));

function group<K>(records: readonly TrialRecord[], key: (r: TrialRecord) => K & string): Map<string, TrialRecord[]> {
  const groups = new Map<string, TrialRecord[]>();
  for (const r of records) {
    const k = key(r);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  return new Map([...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Reward of the continued attempts (mode continue, builtin-fix): mean of the binary reward over ok
 * trials with the Wilson 95% interval; [n, mean, low, high], all empty when nothing was scored.
 */
export function rewardOf(ok: readonly TrialRecord[]): [number | null, number | null, number | null, number | null] {
  const rewards = metricOf(ok, 'reward');
  if (rewards.length === 0) return [null, null, null, null];
  const rewarded = rewards.filter((r) => r === 1).length;
  const ci = wilsonInterval(rewarded, rewards.length);
  return [rewards.length, rewarded / rewards.length, ci.low, ci.high];
}

/** Per backend (agents pooled): the continued attempts' reward and what kept trials out of it. */
function rewardTable(records: readonly TrialRecord[]): Table | null {
  const scored = records.filter((r) => typeof r.facts.reward_task === 'string');
  if (scored.length === 0) return null;
  const rows = [...group(scored, (r) => r.arm.backend).entries()].map(([backend, arm]) => {
    const ok = arm.filter((r) => r.outcome === 'ok');
    const [n, mean, low, high] = rewardOf(ok);
    const wrong = ok.filter((r) => r.facts.reward_path === 'wrong');
    const evaluator = arm.filter((r) => r.facts.replay_failure_category === 'evaluator').length;
    return [backend, `${ok.length}/${arm.length}`, n === null ? '—' : `${fmt(mean, 3)} [${fmt(low, 3)}, ${fmt(high, 3)}] (n=${n})`, `${wrong.length} (${wrong.filter((r) => r.metrics.reward === 0).length} scored 0)`, String(evaluator)];
  });
  return {
    caption: 'Continued attempts: reward from the built-in rollout task\'s evaluator in a fresh scoring sandbox (ok trials; mean, Wilson 95% CI)',
    header: ['backend', 'ok/planned', 'reward mean [95% CI]', 'wrong-path continuations', 'evaluator/scoring failures'],
    rows,
    rightAligned: [1, 2, 3, 4],
    footnote: 'A seeded fraction of trajectories continues on the task\'s wrong path (reward 0 by design). Evaluator or scoring-sandbox failures are infrastructure failures, counted in planned, never reward 0.',
  };
}

export interface BranchPointReference {
  backend: string;
  way: string;
  statistic: string;
  value_ms: number;
  n: number | null;
  source: string;
}

/**
 * Ways to reach the branch point per backend: the prefix replayed here (P50 [CI] of launch to exit,
 * all agents pooled), beside the references the spec cites (a file-checkpoint fork's restore per
 * child from a checkpoint bundle, ...). The three ways measured side by side in one run are mode
 * `branch-point` (experiments/specs/replay-branch-point.yaml, branch-point.csv).
 */
export function branchPointTable(records: readonly TrialRecord[], references: readonly BranchPointReference[], continuing = false): Table {
  // in mode continue launch→exit includes the continuation: the branch point is its first request
  const metric = continuing ? 'first_continuation_request_ms' : 'completion_ms';
  const sandbench = records.filter((r) => subjectOf(r) === 'sandbench');
  const backends = [...new Set([...sandbench.map((r) => r.arm.backend), ...references.map((r) => r.backend)])].sort();
  const rows = backends.map((backend) => {
    const ok = sandbench.filter((r) => r.arm.backend === backend && r.outcome === 'ok');
    const [n, p50, low, high] = p50WithCi(metricOf(ok, metric));
    const refs = references.filter((r) => r.backend === backend);
    return [
      backend,
      n === 0 ? 'not run' : `${fmt(p50)} [${fmt(low)}, ${fmt(high)}] (n=${n})`,
      refs.length === 0 ? 'no reference' : refs.map((r) => `${r.way}: ${r.statistic} ${fmt(r.value_ms)}${r.n ? ` (n=${r.n})` : ''} — ${r.source}`).join('; '),
      'not in this mode (measured with the other two ways by mode branch-point: experiments/specs/replay-branch-point.yaml)',
    ];
  });
  return {
    caption: 'Reaching the branch point, per backend: prefix replay (this run, ms) vs a file-checkpoint fork (referenced) vs the prefix from scratch with the model',
    header: ['backend', continuing ? 'replay + resume, launch→first continuation request P50 [95% CI]' : 'replay-only prefix, launch→exit P50 [95% CI]', 'file-checkpoint fork (referenced figure)', 'from scratch with the model'],
    rows,
    footnote: 'References come from replay.branch_point_references in the spec, each with its source; they were measured on other runs and loads, so compare orders of magnitude, not small differences.',
  };
}

export function replayOnlyAnalysis(input: AnalysisInput, records: readonly TrialRecord[], scope: string, references: readonly BranchPointReference[] = []): KindExtensionOutput {
  const spec = input.resolved.spec;
  const cohort = input.resolved.run_id;
  const rows: Cell[][] = [];
  const evidence: EvidenceRow[] = [];
  const costTable: Table = {
    caption: 'Replay-only: cost to reach the branch point (P50 [95% CI], ok trials) and observation fidelity (every trial whose calls all ran)',
    header: ['subject', 'backend', 'agent', 'ok/planned', 'prefix ms (launch→exit)', 'per call ms', 'identical', 'differs-expected', 'differs-unexpected'],
    rows: [],
    rightAligned: [3, 4, 5, 6, 7, 8],
    footnote: 'P50 CI: distribution-free order statistics (none below n = 6). per call = in-sandbox time of the prefix calls / calls, per trial.',
  };
  for (const [, arm] of group(records, (r) => `${subjectOf(r)}\0${backendOf(r)}\0${r.arm.variant ?? ''}`)) {
    const first = arm[0]!;
    const ok = arm.filter((r) => r.outcome === 'ok');
    const completion = p50WithCi(metricOf(ok, 'completion_ms'));
    const perCall = p50WithCi(metricOf(ok, 'per_call_ms'));
    const counts = countVerdicts(arm);
    const categories = [...group(arm.filter((r) => r.outcome !== 'ok'), (r) => String(r.facts.replay_failure_category ?? r.failure_category ?? 'unknown')).entries()].map(([k, v]) => `${k}:${v.length}`).join(' ');
    const label = `${first.arm.backend}:${first.arm.variant ?? ''}`;
    rows.push([
      String(first.facts.mode ?? 'replay-only'), subjectOf(first), backendOf(first), first.arm.variant ?? null, arm.length, ok.length,
      arm.filter((r) => r.outcome === 'failed').length, arm.filter((r) => r.outcome === 'invalid').length, categories || null,
      ...completion, ...perCall, summarize(metricOf(ok, 'replay_ms')).overall_p50, summarize(metricOf(ok, 'ready_ms')).overall_p50,
      counts.judged, counts.identical, counts.expected, counts.unexpected, scope, cohort,
      ...rewardOf(ok),
    ]);
    costTable.rows.push([
      subjectOf(first), backendOf(first), first.arm.variant ?? '', `${ok.length}/${arm.length}`,
      `${fmt(completion[1])} [${fmt(completion[2])}, ${fmt(completion[3])}]`, `${fmt(perCall[1])} [${fmt(perCall[2])}, ${fmt(perCall[3])}]`,
      String(counts.identical), String(counts.expected), String(counts.unexpected),
    ]);
    const condition = `${conditionOf(spec)}; ${scope}`;
    const limitations = ok.length === arm.length ? '' : `${arm.length - ok.length} of ${arm.length} trial(s) failed or invalid (${categories})`;
    for (const [metric, value] of [['completion_ms', completion], ['per_call_ms', perCall]] as const) {
      if (value[1] === null) continue;
      evidence.push({ scenario: 'historical_context', topic: 'tool_replay_cost', source: EVIDENCE_SOURCE, cohort, variant: label, metric, statistic: 'P50', n: value[0], value: value[1], unit: 'ms', condition, limitations });
    }
    for (const [statistic, value] of [['identical', counts.identical], ['differs_expected', counts.expected], ['differs_unexpected', counts.unexpected]] as const) {
      evidence.push({ scenario: 'historical_context', topic: 'replay_fidelity', source: EVIDENCE_SOURCE, cohort, variant: label, metric: 'replayed_observations', statistic: `${statistic}_count`, n: counts.judged, value, unit: 'count', condition, limitations });
    }
  }
  const callRows: Cell[][] = [];
  const callTable: Table = {
    caption: 'Replay-only: cost of each prefix call across agents (ok trials; P50 [95% CI], in-sandbox ms)',
    header: ['subject', 'backend', 'call', 'command (trajectory 0)', 'n', 'P50 ms [95% CI]', 'identical / expected / unexpected'],
    rows: [],
    rightAligned: [2, 4, 5],
  };
  for (const [, arm] of group(records, (r) => `${subjectOf(r)}\0${backendOf(r)}`)) {
    const first = arm[0]!;
    const positions = Math.max(0, ...arm.map((r) => callsOf(r).length));
    for (let k = 0; k < positions; k++) {
      const calls = arm.filter(judged).map((r) => callsOf(r)[k]).filter((c): c is CallFact => c !== undefined);
      const times = arm.filter((r) => r.outcome === 'ok').map((r) => callsOf(r)[k]?.duration_ms).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
      const [n, p50, low, high] = p50WithCi(times);
      const verdicts = ['identical', 'differs-expected', 'differs-unexpected'].map((v) => calls.filter((c) => c.verdict === v).length);
      const command = calls[0]?.command ?? null;
      callRows.push([subjectOf(first), backendOf(first), k, command, calls[0]?.fresh ?? null, n, p50, low, high, ...verdicts]);
      callTable.rows.push([subjectOf(first), backendOf(first), String(k), (command ?? '').slice(0, 48), String(n), `${fmt(p50)} [${fmt(low)}, ${fmt(high)}]`, verdicts.join(' / ')]);
    }
  }
  for (const [backend, arm] of group(records.filter((r) => typeof r.facts.reward_task === 'string'), (r) => r.arm.backend)) {
    const ok = arm.filter((r) => r.outcome === 'ok');
    const [n, mean, low, high] = rewardOf(ok);
    if (n === null) continue;
    const condition = `${conditionOf(spec)}; ${scope}; scored on ${String(arm[0]!.facts.scoring_backend)}`;
    const limitations = `binary reward; a seeded fraction continues on the wrong path; Wilson 95% CI [${low}, ${high}]${ok.length === arm.length ? '' : `; ${arm.length - ok.length} of ${arm.length} trial(s) failed or invalid`}`;
    evidence.push({ scenario: 'historical_context', topic: 'continued_attempt_reward', source: EVIDENCE_SOURCE, cohort, variant: backend, metric: 'reward', statistic: 'mean', n, value: mean!, unit: 'ratio', condition, limitations });
  }
  const reward = rewardTable(records);
  return {
    files: new Map([
      [REPLAY_ONLY_SUMMARY_FILE, toCsv(REPLAY_ONLY_SUMMARY_HEADER, rows)],
      [REPLAY_CALLS_FILE, toCsv(REPLAY_CALLS_HEADER, callRows)],
    ]),
    evidence,
    tables: [costTable, callTable, ...(reward ? [reward] : []), branchPointTable(records, references, records.some((r) => r.facts.mode === 'continue'))],
  };
}
