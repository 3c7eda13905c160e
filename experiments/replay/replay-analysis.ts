/**
 * replay-summary.csv (pVisor's replay summary header) and `passed_prefix_checks` evidence rows, as a
 * PURE function of the journal and the resolved spec (no files, no processes), so analysing a bundle
 * twice gives the same bytes. Part of the replay descriptor (`replayKindAnalysis`).
 */
import { replaySection } from './replay-plan.ts';
import { createHash } from 'node:crypto';
import type { AnalysisInput, KindAnalysis, KindExtensionOutput } from '../../harness/analyze/kind-analysis.ts';
import { toCsv, type Cell } from '../../harness/bundle/csv.ts';
import { conditionOf, EVIDENCE_SOURCE, type EvidenceRow } from '../../harness/analyze/evidence.ts';
import { armLabel, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { summarize } from '../../harness/stats/index.ts';
import { AGENT_FORMATS, isReplayAgent } from './agents.ts';
import { EFFECTS_PREFIX_CALLS } from './reexecute/effects-task.ts';
import { BUILTIN_FIX_PREFIX_CALLS } from './reexecute/builtin-fix-task.ts';
import { BRANCH_POINT_FILE, branchPointAnalysis } from './reexecute/branch-point/branch-point-analysis.ts';
import { REPLAY_CALLS_FILE, REPLAY_ONLY_SUMMARY_FILE, replayOnlyAnalysis } from './reexecute/replay-only-analysis.ts';
import { continuationAnalysis, REPLAY_CONTINUATION_FILE } from './reexecute/continuation-analysis.ts';

export const REPLAY_SUMMARY_FILE = 'replay-summary.csv';

export const REPLAY_SUMMARY_HEADER = [
  'agent', 'profile', 'planned_conditions', 'failed_conditions', 'n', 'p50', 'p95_reference', 'minimum', 'maximum', 'distribution',
  'low_n', 'low_p50', 'high_n', 'high_p50', 'unit', 'timing', 'samples', 'scope', 'cohort', 'recorded_at', 'report_sha256',
  'replay_binary_sha256', 'source_manifest_sha256', 'audit_sha256', 'cpu_affinity', 'memory_limit',
] as const;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const sortedUnique = (values: unknown[]) => [...new Set(values.filter((v): v is string => typeof v === 'string'))].sort();

function byArm(records: readonly TrialRecord[]): Map<string, TrialRecord[]> {
  const arms = new Map<string, TrialRecord[]>();
  for (const record of records) {
    if (record.warmup || record.experiment !== 'replay') continue;
    const label = armLabel(record.arm);
    if (!arms.has(label)) arms.set(label, []);
    arms.get(label)!.push(record);
  }
  return new Map([...arms.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The last record of each trial id (a resumed run may journal a trial twice). */
function latest(records: readonly TrialRecord[]): TrialRecord[] {
  return [...new Map(records.map((r) => [r.trial_id, r])).values()];
}

const passedAudit = (r: TrialRecord) => r.outcome === 'ok' && Object.values(r.validity).every((v) => v === 'pass');

export function replayAnalysis(input: AnalysisInput): KindExtensionOutput {
  const spec = input.resolved.spec;
  const cohort = input.resolved.run_id;
  const replay = replaySection(spec);
  // bundles recorded before issue 19 have no mode: they are prepare-only
  const replayOnly = replay.mode === 'replay-only' || replay.mode === 'continue' || replay.mode === 'branch-point';
  const scope = replayOnly
    ? `${replay.mode}; after-step ${replay.task === 'builtin-fix' ? BUILTIN_FIX_PREFIX_CALLS : EFFECTS_PREFIX_CALLS} (${replay.task ?? 'effects'} task); ${replay.trajectories} synthetic prefixes x ${replay.repetitions} seeded reps; no warmups`
    : `prepare-only; after-step 1; ${replay.trajectories} synthetic prefixes x ${replay.repetitions} seeded reps; no warmups`;
  const rows: Cell[][] = [];
  const evidence: EvidenceRow[] = [];
  for (const [label, all] of byArm(input.records)) {
    const records = latest(all);
    const agent = records[0]!.arm.variant ?? '';
    const subject = records[0]!.arm.backend;
    const ok = records.filter(passedAudit);
    // timings of audited attempts only; failed and invalid attempts stay in the denominators
    const s = summarize(ok.map((r) => r.metrics.completion_ms!).filter((v) => Number.isFinite(v)), records.length - ok.length);
    const split = s.clusters?.distribution === 'separated-clusters' ? s.clusters : null;
    const profile = `${subject}/${agent}/${isReplayAgent(agent) ? AGENT_FORMATS[agent].version : 'unknown'}`;
    const audit = records.map((r) => `${r.trial_id}\t${r.outcome}\t${JSON.stringify(Object.entries(r.validity).sort())}`).sort().join('\n');
    rows.push([
      agent, profile, records.length, records.length - ok.length, s.n, s.p50, s.p95, s.min, s.max,
      s.n === 0 ? 'no_samples' : split ? 'separated-clusters' : 'unsplit',
      split?.low.n ?? null, split?.low.p50 ?? null, split?.high.n ?? null, split?.high.p50 ?? null,
      'ms', 'launch->exit (completion_ms)', 'journal.jsonl', scope, cohort, null, null,
      sortedUnique(records.map((r) => r.facts.subject_sha256)).join(' ') || null,
      sha256(sortedUnique(records.map((r) => r.facts.trajectory_sha256)).join('\n')),
      sha256(audit),
      spec.controls.cpus ?? null,
      spec.controls.memory === undefined ? 'uncapped' : `${spec.controls.memory}MiB`,
    ]);
    evidence.push({
      scenario: 'historical_context', topic: 'replay_prefix', source: EVIDENCE_SOURCE, cohort, variant: label,
      metric: 'prefix_checks', statistic: 'passed_prefix_checks', n: records.length, value: ok.length, unit: 'count',
      condition: `${conditionOf(spec)}; ${scope}`, limitations: ok.length === records.length ? '' : `${records.length - ok.length} attempt(s) failed or invalid`,
    });
  }
  const files = new Map([[REPLAY_SUMMARY_FILE, toCsv(REPLAY_SUMMARY_HEADER, rows)]]);
  if (!replayOnly) return { files, evidence };
  if (replay.mode === 'branch-point') {
    const bp = branchPointAnalysis(input, [...byArm(input.records).values()].flatMap(latest), scope);
    return { files: new Map([...files, ...bp.files]), evidence: [...evidence, ...bp.evidence], tables: bp.tables };
  }
  const more = replayOnlyAnalysis(input, [...byArm(input.records).values()].flatMap(latest), scope, replay.branch_point_references ?? []);
  const continued = replay.mode === 'continue' ? continuationAnalysis([...byArm(input.records).values()].flatMap(latest)) : { files: new Map<string, string>(), tables: [] };
  return { files: new Map([...files, ...more.files, ...continued.files]), evidence: [...evidence, ...more.evidence], tables: [...(more.tables ?? []), ...continued.tables] };
}

export const replayKindAnalysis: KindAnalysis = {
  scenario: 'historical_context',
  topic: 'replay_prefix',
  // A subject's process from launch to exit: the preparation time the study publishes.
  primaryMetrics: ['completion_ms'],
  files: [REPLAY_SUMMARY_FILE, REPLAY_ONLY_SUMMARY_FILE, REPLAY_CALLS_FILE, REPLAY_CONTINUATION_FILE, BRANCH_POINT_FILE],
  extension: replayAnalysis,
};
