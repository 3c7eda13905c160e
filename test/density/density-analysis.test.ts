/** density-summary.csv and active_capacity evidence from synthetic journal records (pure analysis). */
import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { DENSITY_SUMMARY_HEADER, densityAnalysis } from '../../experiments/density/density-analysis.ts';
import { densityExperiment } from '../../experiments/density/density-kind.ts';
import { TRIAL_SCHEMA_VERSION, type TrialRecord } from '../../harness/journal/trial-record.ts';
import { parseSpec } from '../../experiments/registry.ts';
import type { ResolvedSpec } from '../../harness/spec/resolve-spec.ts';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildDensityPlan } from '../../experiments/density/density-plan.ts';
import { serializePlan } from '../../harness/plan/plan.ts';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { kindCatalog } from '../../cli/kinds.ts';
import { reproduce } from '../../reports/reproduce/reproduce.ts';
import { DEFAULT_PUBLISHED, mappingPathFor, readMapping, readPublished } from '../../reports/reproduce/published.ts';
import { tempDir } from '../support/temp-dirs.ts';

const spec = parseSpec({ name: 'd', experiment: 'density', arms: [{ backend: 'staged' }], warmups: 0, trials: 1, seed: 1, timeout: '60s', density: { concurrency: [16], batches: 5 } });
const resolved: ResolvedSpec = { run_id: 'r1', spec_path: 'd.yaml', spec_sha256: 'sha256:0', overrides: {}, skipped_arms: [], plan_arms: ['staged'], spec };

function batch(i: number, validated: number, extra: Partial<TrialRecord> = {}, metrics: Record<string, number> = {}, reasons: Record<string, number> = {}): TrialRecord {
  return {
    run_id: 'r1', schema_version: TRIAL_SCHEMA_VERSION, experiment: 'density', arm: { backend: 'staged', variant: null }, block: i, position: i,
    trial_id: `b${i}`, warmup: false, seed: i, outcome: validated === 16 ? 'ok' : 'failed', failure_category: validated === 16 ? null : 'oom',
    exit_code: null, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: 1000 + i,
    metrics: { attempted: 16, validated, wall_ms: 1000 + i * 10, barrier_memory_mib: 600 + i, peak_memory_mib: 650 + i, oom_count: 16 - validated, ...metrics },
    validity: {}, notes: [], facts: { workload: 'useful', concurrency: 16, failure_reasons: reasons, membership: { outsideByDesign: [], adopted: [] } }, ...extra,
  };
}

describe('density analysis', () => {
  it('writes the published header and keeps failed and missing batches in the denominators', () => {
    // 3 full batches, 1 with 2 OOM kills, 1 never recorded (interrupted run).
    const records = [batch(0, 16), batch(1, 16), batch(2, 14, {}, {}, { oom_after_release: 2 }), batch(3, 16)];
    const out = densityAnalysis({ resolved, records });
    const csv = out.files.get('density-summary.csv')!;
    const parsed = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true });
    expect(parsed.meta.fields).toEqual([...DENSITY_SUMMARY_HEADER]);
    const row = parsed.data[0]!;
    expect(row).toMatchObject({
      backend: 'staged', workload: 'useful', concurrency: '16', planned_batches: '5', full_valid_no_oom_batches: '3',
      failed_or_unknown_or_oom_batches: '2', oom_batches: '1', resource_evidence_unknown_batches: '1', attempted_tasks: '80',
      validated_completed_tasks: '62', known_failed_tasks: '2', unknown_tasks: '16', observed_all_rounds_succeeded: 'false',
      memory_budget_mib: '2048', cpu_affinity: '0-1', swap_bytes: '0', observed_peak_min_mib: '650', observed_peak_max_mib: '653', cohort: 'r1',
    });
    expect(JSON.parse(row.failure_reasons!)).toEqual({ batch_not_recorded: 1, oom_after_release: 2 });
    const wall = JSON.parse(row.full_batch_wall_distribution!);
    expect(wall).toMatchObject({ distribution: 'unsplit', n: 3, p50: 1010, p95_reference: null, minimum: 1000, maximum: 1030 });
    expect(JSON.parse(row.barrier_memory_distribution_mib!)).toMatchObject({ n: 3, p50: 601 });

    const byMetric = Object.fromEntries(out.evidence.map((e) => [e.metric, e]));
    expect(byMetric.full_valid_no_oom_batches).toMatchObject({ scenario: 'active_capacity', statistic: 'count', n: 5, value: 3 });
    expect(byMetric.recorded_batches).toMatchObject({ statistic: 'count', n: 5, value: 4 });
    expect(byMetric.validated_completed_tasks).toMatchObject({ statistic: 'count', n: 80, value: 62 });
    expect(byMetric.barrier_memory_current_p50).toMatchObject({ statistic: 'P50', n: 3, value: 601, unit: 'MiB' });
    expect(byMetric.full_batch_wall_p50).toMatchObject({ statistic: 'P50', n: 3, value: 1010, unit: 'ms' });
    expect(byMetric.full_batch_wall_p50!.limitations).toContain('harness process is outside the budget');
  });

  it('is deterministic and part of the density descriptor', () => {
    const records = [batch(0, 16), batch(1, 16)];
    expect(densityAnalysis({ resolved, records }).files.get('density-summary.csv')).toBe(densityAnalysis({ resolved, records: [...records] }).files.get('density-summary.csv'));
    expect(densityExperiment.analysis.extension).toBe(densityAnalysis);
  });

  it('states docker shims moved into the budget as a limitation', () => {
    const moved = batch(0, 16, { arm: { backend: 'docker', variant: null }, facts: { workload: 'useful', concurrency: 16, failure_reasons: {}, membership: { outsideByDesign: [{ comm: 'docker' }], adopted: [{ comm: 'containerd-shim' }] } } });
    const rows = densityAnalysis({ resolved, records: [moved] }).evidence;
    expect(rows[0]!.limitations).toMatch(/docker CLI clients outside by design; containerd-shim started outside and moved into the budget/);
  });

  it('idle cells are the idle_occupancy topic; clients inside the budget are a stated condition', () => {
    const idle = batch(0, 16, { arm: { backend: 'podman', variant: null }, facts: { workload: 'idle', concurrency: 16, failure_reasons: {}, container_clients: 'inside', membership: { outsideByDesign: [], adopted: [] } } });
    const rows = densityAnalysis({ resolved, records: [idle] }).evidence;
    expect(new Set(rows.map((r) => `${r.scenario}/${r.topic}`))).toEqual(new Set(['idle_occupancy/idle_occupancy']));
    expect(rows[0]!.limitations).toContain('container CLI clients inside the budget (density.container_clients: inside');
    expect(rows[0]!.limitations).not.toContain('outside by design;');
    expect(densityAnalysis({ resolved, records: [batch(0, 16)] }).evidence.every((r) => r.topic === 'active_capacity')).toBe(true);
  });
});

describe('the published capacity ordering against a density bundle', () => {
  // A real bundle dir (spec, plan, journal) analysed as `reproduce` analyses it.
  async function capacityCheck(records: TrialRecord[]) {
    const dir = tempDir('sandbench-density-capacity-');
    writeFileSync(join(dir, 'resolved-spec.json'), `${JSON.stringify(resolved)}\n`);
    writeFileSync(join(dir, 'spec.yaml'), 'name: d\n');
    writeFileSync(join(dir, 'plan.json'), serializePlan(buildDensityPlan(spec)));
    writeFileSync(join(dir, 'journal.jsonl'), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const bundle = analyzeBundle(dir, await kindCatalog(), { write: false });
    const out = reproduce(bundle, readPublished(DEFAULT_PUBLISHED), readMapping(mappingPathFor(DEFAULT_PUBLISHED)));
    return out.orderings.find((o) => o.id === 'capacity-active_capacity-staged-16')!;
  }

  it('does not call a cell over capacity for batches an interrupted run has not recorded yet', async () => {
    const partial = await capacityCheck([batch(0, 16), batch(1, 16), batch(2, 16)]);
    expect(partial.status).toBe('not checked');
    expect(partial.reason).toContain('3 of 5 planned batches recorded');
    // one recorded batch that is not full decides, whatever the rest would do
    expect((await capacityCheck([batch(0, 16), batch(1, 14, {}, {}, { oom_after_release: 2 })])).status).toBe('reversed');
    expect((await capacityCheck([0, 1, 2, 3, 4].map((i) => batch(i, 16)))).status).toBe('holds');
  });
});
