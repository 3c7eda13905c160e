/**
 * What mode `continue` adds to the replay analysis (issue 19), PURE over the journal:
 * `replay-continuation.csv`, one row per backend × trajectory format × continuing agent (the built-in
 * agent, or codex through its native resume): outcomes with failure categories (a CLI refusing its
 * seeded session shows as `session_refused`), time to the first continuation request from launch and
 * from the end of the replay (P50 with the order-statistic 95% CI, ok trials only), what the
 * continuation saw of the fresh call (replayed / historical / unknown, over every trial that reached
 * the model) and how many sent the whole prefix (CLI continuations; the built-in agent's whole
 * prefix is its own --resume-from file, so empty there), and for CLI resumes the P50 cost of seeding
 * the CLI's session store (end of replay → session seeded).
 */
import type { Table } from '../../../harness/analyze/table.ts';
import { toCsv, type Cell } from '../../../harness/bundle/csv.ts';
import type { TrialRecord } from '../../../harness/journal/trial-record.ts';
import { medianOrderStatisticCi, summarize } from '../../../harness/stats/index.ts';

export const REPLAY_CONTINUATION_FILE = 'replay-continuation.csv';
export const REPLAY_CONTINUATION_HEADER = [
  'backend', 'agent', 'continued_by', 'planned', 'ok', 'failed', 'invalid', 'failure_categories',
  'first_request_n', 'first_request_p50_ms', 'first_request_ci95_low_ms', 'first_request_ci95_high_ms',
  'resume_to_request_p50_ms', 'resume_to_request_ci95_low_ms', 'resume_to_request_ci95_high_ms', 'continuation_p50_ms',
  'saw_replayed', 'saw_historical', 'saw_unknown', 'whole_prefix', 'whole_prefix_judged', 'seed_p50_ms',
] as const;

const values = (records: readonly TrialRecord[], metric: string) => records.map((r) => r.metrics[metric]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v >= 100 ? v.toFixed(0) : v.toFixed(1));

function p50Ci(xs: number[]): [number, number | null, number | null, number | null] {
  const ci = medianOrderStatisticCi(xs);
  return [xs.length, summarize(xs).overall_p50, ci?.low ?? null, ci?.high ?? null];
}

export function continuationAnalysis(records: readonly TrialRecord[]): { files: Map<string, string>; tables: Table[] } {
  const rows: Cell[][] = [];
  const table: Table = {
    caption: 'Continuation from the replayed prefix: time to the first continuation request and what it saw of the fresh call',
    header: ['backend', 'format', 'continued by', 'ok / planned', 'launch→first request P50 [95% CI] ms', 'end of replay→first request P50 ms', 'saw replayed / historical / unknown', 'whole prefix sent'],
    rows: [],
    rightAligned: [3, 4, 5],
    footnote: 'ok trials only for times (order-statistic CI, none below n = 6); saw counts over every trial whose continuation reached the model; failures keep their category.',
  };
  const groups = new Map<string, TrialRecord[]>();
  for (const r of records) {
    if (r.facts.mode !== 'continue') continue;
    const key = `${r.arm.backend}\0${r.arm.variant ?? ''}\0${String(r.facts.continuation_agent ?? 'sandbench-builtin-agent')}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const [key, arm] of [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const [backend, agent, by] = key.split('\0') as [string, string, string];
    const ok = arm.filter((r) => r.outcome === 'ok');
    const categories = [...new Set(arm.filter((r) => r.outcome !== 'ok').map((r) => String(r.facts.continuation_failure ?? r.facts.replay_failure_category ?? r.failure_category ?? 'unknown')))]
      .map((c) => `${c}:${arm.filter((r) => r.outcome !== 'ok' && String(r.facts.continuation_failure ?? r.facts.replay_failure_category ?? r.failure_category ?? 'unknown') === c).length}`)
      .join(' ');
    const first = p50Ci(values(ok, 'first_continuation_request_ms'));
    const resume = p50Ci(values(ok, 'continuation_first_request_ms'));
    const saw = (what: string) => arm.filter((r) => r.facts.continuation_saw === what).length;
    const prefixJudged = arm.filter((r) => typeof r.facts.continuation_whole_prefix === 'boolean');
    const whole = prefixJudged.filter((r) => r.facts.continuation_whole_prefix === true).length;
    rows.push([
      backend, agent, by, arm.length, ok.length, arm.filter((r) => r.outcome === 'failed').length, arm.filter((r) => r.outcome === 'invalid').length, categories || null,
      ...first, ...resume.slice(1), summarize(values(ok, 'continuation_ms')).overall_p50,
      saw('replayed'), saw('historical'), saw('unknown'), prefixJudged.length > 0 ? whole : null, prefixJudged.length > 0 ? prefixJudged.length : null,
      summarize(values(ok, 'continuation_seed_ms')).overall_p50,
    ]);
    table.rows.push([
      backend, agent, by, `${ok.length}/${arm.length}`, `${fmt(first[1])} [${fmt(first[2])}, ${fmt(first[3])}]`, fmt(resume[1]),
      `${saw('replayed')} / ${saw('historical')} / ${saw('unknown')}`, prefixJudged.length > 0 ? `${whole}/${prefixJudged.length}` : '— (own resume file)',
    ]);
  }
  return { files: new Map([[REPLAY_CONTINUATION_FILE, toCsv(REPLAY_CONTINUATION_HEADER, rows)]]), tables: rows.length > 0 ? [table] : [] };
}
