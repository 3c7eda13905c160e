/**
 * The rollout-step kind end to end on real backends (host and staged, the built-in tasks and agent,
 * the real model service and budgets), tiny on purpose: K = 2, B = 1, two steps with staleness 1,
 * every prefix strategy. Checks the step records, the warm pool's claims, fork run on staged (its
 * phases recorded, rewards equal to fresh's) and recorded as not applicable on host with the
 * mechanism's reason, the documented CSV, the evidence and the report panel, and that nothing of
 * the run is left behind.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { ROLLOUT_STEP_FILE, ROLLOUT_STEP_HEADER } from '../../experiments/rollout-step/rollout-step-analysis.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';

const dir = tempDir('sandbench-rollout-step-');

const SPEC = `name: rollout-step-test
experiment: rollout-step
arms: [{ backend: host }, { backend: staged }]
warmups: 0
trials: 1
seed: 31
timeout: 120s
resamples: 1000
rollout_step:
  group_size: [2]
  tasks_per_step: 1
  steps: 2
  prefix: [fresh, warm-pool, fork]
  pool_size: 2
  concurrency: 2
  model: { slots: 2, base_ms: 10 }
  trainer: { train_ms: 100ms, staleness: 1 }
  scoring_backend: staged
`;

function nothingLeft(runId: string): void {
  expect(existsSync(runScratchDir(stateDir(), runId))).toBe(false);
  for (const root of ['/sys/fs/cgroup/memory', '/sys/fs/cgroup'].filter(existsSync)) expect(readdirSync(root).filter((name) => name.includes(runId))).toEqual([]);
  const procs = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(runId);
    } catch {
      return false;
    }
  });
  expect(procs).toEqual([]);
}

describe('rollout-step kind', () => {
  it('runs steps of K attempts per task with fresh, warm-pool and (staged) fork starts, records host fork as not applicable, and writes rollout-step.csv', async () => {
    const specPath = join(dir, 'rollout-step-test.yaml');
    writeFileSync(specPath, SPEC);
    const out = join(dir, 'bundle');
    const result = await runSpec({ specPath, overrides: {}, out, requireAll: false, log: () => undefined, wiring: await runWiring() });
    const runId = JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8')).run_id as string;
    const records = result.records.filter((r) => !r.warmup);
    expect(records).toHaveLength(2 * 3 * 2 * 2); // arms × prefixes × steps × (B × K)

    const fork = records.filter((r) => r.facts.prefix === 'fork' && r.arm.backend === 'host');
    for (const r of fork) {
      expect(r.failure_category).toBe('not_applicable');
      expect(String(r.facts.prefix_unavailable)).toMatch(/checkpoint mechanism/);
      expect(r.metrics).toEqual({});
    }
    const forked = records.filter((r) => r.facts.prefix === 'fork' && r.arm.backend === 'staged');
    expect(forked).toHaveLength(4);
    for (const r of forked) {
      const phases = r.facts.fork as { prepare_ms: number; checkpoint_ms: number; restore_ms: number; attempt_ms: number; child: number };
      expect(phases.restore_ms).toBeGreaterThan(0);
      expect(phases.attempt_ms).toBeGreaterThan(0);
      // a group's K children share one prepare and checkpoint
      const group = forked.filter((o) => o.facts.step_run === r.facts.step_run && o.facts.group_slot === r.facts.group_slot);
      expect(new Set(group.map((o) => (o.facts.fork as typeof phases).checkpoint_ms)).size).toBe(1);
      expect(new Set(group.map((o) => (o.facts.fork as typeof phases).child))).toEqual(new Set([0, 1]));
    }
    const ran = records.filter((r) => !fork.includes(r));
    for (const r of ran) {
      expect(r.outcome, JSON.stringify(r.notes)).toBe('ok');
      const m = r.metrics;
      expect(m.prepare_ms! + m.ready_ms! + m.model_ms! + m.tool_ms! + m.evaluation_ms! + m.drop_ms!).toBeCloseTo(m.wall_ms!, 3);
      expect(m.start_ms).toBeCloseTo(m.prepare_ms! + m.ready_ms!, 6);
      expect(m.staleness).toBeLessThanOrEqual(1);
      // a step's figures are one value, copied onto each of its attempts
      const sameStep = ran.filter((o) => o.facts.step_run === r.facts.step_run);
      expect(sameStep).toHaveLength(2);
      expect(new Set(sameStep.map((o) => o.metrics.step_ms)).size).toBe(1);
      expect(m.step_ms).toBeGreaterThanOrEqual(m.wall_ms! - 1e-6); // both from the same stamps, summed differently
    }
    const pooled = ran.filter((r) => r.facts.prefix === 'warm-pool');
    for (const r of pooled) expect(['hit', 'miss']).toContain(r.facts.pool_claim);

    const csv = parseCsv(ROLLOUT_STEP_FILE, readFileSync(join(out, ROLLOUT_STEP_FILE), 'utf8'));
    expect(csv.header).toEqual([...ROLLOUT_STEP_HEADER]);
    expect(csv.rows).toHaveLength(6);
    for (const row of csv.rows) {
      if (row.prefix === 'fork' && row.backend === 'host') {
        expect(row.not_applicable).toMatch(/checkpoint mechanism/);
        expect(row.steps).toBe('0');
        continue;
      }
      expect(row.steps).toBe('2');
      expect(row.valid).toBe('4');
      if (row.prefix === 'fork') {
        expect(row.fork_groups).toBe('2');
        expect(row.fork_children).toBe('4');
        expect(row.reward_parity_compared).toBe('4');
        expect(row.reward_parity_agree).toBe('4');
        expect(row.saving_vs_fresh_ms).not.toBe('');
        continue;
      }
      if (row.prefix !== 'warm-pool') continue;
      expect(Number(row.pool_claims)).toBe(4);
      // the pool is filled before the first step, so the first step's claims find their sandboxes
      expect(Number(row.pool_hits)).toBeGreaterThanOrEqual(2);
      expect(row.saving_vs_fresh_ms).not.toBe('');
    }
    const evidence = readFileSync(join(out, 'evidence.csv'), 'utf8');
    expect(evidence).toMatch(/rl_step,step_time,sandbench/);
    expect(evidence).toMatch(/not_applicable/);
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('Step time (P50 over steps) against group size K');
    nothingLeft(runId);
  }, 240_000);
});
