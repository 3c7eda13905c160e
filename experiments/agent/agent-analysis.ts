/**
 * The agent kind's analysis, PURE (records → agent-summary.csv, a report table and evidence rows):
 * per arm (backend × agent CLI [× CPU model]) the P50 with its order-statistic 95% CI of time to
 * the first model request and of time to exit, over ok formal trials only; ok/planned; and the
 * failure categories with their finer causes (facts.agent_failure: init_deadline, signal, ...).
 * Every planned formal trial stays in the denominator. Evidence: the generic per-metric rows, plus
 * for an arm with no ok trial the published `unavailable_failed_preflight` (the study's
 * Claude-Code-in-VM row: N=0 valid).
 */
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import type { AnalysisInput, KindAnalysis, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import type { Table } from '../../harness/analyze/table.ts';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { median, medianOrderStatisticCi } from '../../harness/stats/index.ts';

export const AGENT_SUMMARY_FILE = 'agent-summary.csv';
export const AGENT_SUMMARY_HEADER = [
  'arm', 'backend', 'agent', 'vm_cpu_model', 'planned', 'ok', 'invalid', 'failed',
  'first_request_p50_ms', 'first_request_ci95_low_ms', 'first_request_ci95_high_ms',
  'exit_p50_ms', 'exit_ci95_low_ms', 'exit_ci95_high_ms',
  'forwarder_ready_p50_ms', 'model_requests_p50', 'failure_categories', 'failure_causes',
] as const;

const SCENARIO = 'agent_cli_tool_loop';
const LIMITS = 'scripted two-turn loop against a local deterministic model service; fresh HOME per trial (cold start); P50 CI by order statistics (null below n=6)';

export interface MetricSummary {
  n: number;
  p50: number | null;
  low: number | null;
  high: number | null;
}

export function summarize(values: readonly number[]): MetricSummary {
  if (values.length === 0) return { n: 0, p50: null, low: null, high: null };
  const ci = medianOrderStatisticCi(values);
  return { n: values.length, p50: median([...values]), low: ci?.low ?? null, high: ci?.high ?? null };
}

function counts(values: readonly string[]): string {
  const tally = new Map<string, number>();
  for (const value of values) tally.set(value, (tally.get(value) ?? 0) + 1);
  return [...tally.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `${key}=${count}`).join(';');
}

export interface AgentArmSummary {
  arm: string;
  backend: string;
  agent: string;
  cpuModel: string | null;
  planned: number;
  ok: number;
  invalid: number;
  failed: number;
  firstRequest: MetricSummary;
  exit: MetricSummary;
  forwarderReady: MetricSummary;
  modelRequests: MetricSummary;
  categories: string;
  causes: string;
}

export function summarizeArms(records: readonly TrialRecord[]): AgentArmSummary[] {
  const formal = records.filter((record) => !record.warmup);
  const arms = [...new Set(formal.map((record) => armLabel(record.arm)))].sort();
  return arms.map((arm) => {
    const trials = formal.filter((record) => armLabel(record.arm) === arm);
    const ok = trials.filter((record) => record.outcome === 'ok');
    const metric = (name: string) => ok.map((record) => record.metrics[name]).filter((value): value is number => typeof value === 'number');
    const notOk = trials.filter((record) => record.outcome !== 'ok');
    const first = trials[0]!;
    return {
      arm,
      backend: first.arm.backend,
      agent: String(first.facts.agent ?? first.arm.variant ?? ''),
      cpuModel: (first.facts.vm_cpu_model as string | null | undefined) ?? null,
      planned: trials.length,
      ok: ok.length,
      invalid: trials.filter((record) => record.outcome === 'invalid').length,
      failed: trials.filter((record) => record.outcome === 'failed').length,
      firstRequest: summarize(metric('first_request_ms')),
      exit: summarize(metric('completion_ms')),
      forwarderReady: summarize(metric('forwarder_ready_ms')),
      modelRequests: summarize(metric('model_requests')),
      categories: counts(notOk.map((record) => record.failure_category ?? 'none')),
      causes: counts(notOk.map((record) => String(record.facts.agent_failure ?? 'unknown'))),
    };
  });
}

const fmt = (value: number | null) => (value === null ? '' : value.toFixed(0));
const withCi = (summary: MetricSummary) => (summary.p50 === null ? '–' : `${fmt(summary.p50)} [${summary.low === null ? 'n<6' : `${fmt(summary.low)}–${fmt(summary.high)}`}]`);

export function agentExtension(input: AnalysisInput): KindExtensionOutput {
  const summaries = summarizeArms(input.records);
  const rows: Cell[][] = summaries.map((s) => [
    s.arm, s.backend, s.agent, s.cpuModel, s.planned, s.ok, s.invalid, s.failed,
    s.firstRequest.p50, s.firstRequest.low, s.firstRequest.high,
    s.exit.p50, s.exit.low, s.exit.high,
    s.forwarderReady.p50, s.modelRequests.p50, s.categories, s.causes,
  ]);
  const table: Table = {
    caption: 'Agent CLI × backend: time to first model request and to exit (P50 [95% CI], ms; ok trials only)',
    header: ['arm', 'ok/planned', 'first request', 'exit', 'forwarder ready', 'failures'],
    rows: summaries.map((s) => [s.arm, `${s.ok}/${s.planned}`, withCi(s.firstRequest), withCi(s.exit), s.forwarderReady.p50 === null ? '–' : fmt(s.forwarderReady.p50), s.causes || '–']),
  };
  const condition = conditionOf(input.resolved.spec);
  const evidence: EvidenceRow[] = [];
  for (const s of summaries) {
    const base = { scenario: SCENARIO, topic: 'agent_cli', source: EVIDENCE_SOURCE, cohort: input.resolved.run_id, variant: s.arm, unit: 'ms', condition: `${condition}; agent ${s.agent}${s.cpuModel ? `; vm cpu ${s.cpuModel}` : ''}` };
    const limitations = `${LIMITS}; ${s.ok} ok of ${s.planned} planned${s.causes ? ` (${s.causes})` : ''}`;
    // The generic evidence already has each metric's P50 of the ok trials; what it cannot say is
    // the published "N=0 is not zero latency" row of an arm where no trial was valid.
    if (s.ok === 0) evidence.push({ ...base, metric: 'completion_ms', statistic: 'unavailable_failed_preflight', n: 0, value: null, limitations });
  }
  return { files: new Map([[AGENT_SUMMARY_FILE, toCsv(AGENT_SUMMARY_HEADER, rows)]]), evidence, tables: [table] };
}

export const agentKindAnalysis: KindAnalysis = {
  scenario: SCENARIO,
  topic: 'agent_cli',
  primaryMetrics: ['first_request_ms', 'completion_ms'],
  trialsPerBlock: 1,
  files: [AGENT_SUMMARY_FILE],
  extension: agentExtension,
};
