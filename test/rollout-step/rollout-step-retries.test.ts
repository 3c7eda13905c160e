/**
 * Retries, injected faults and reward dedup in the rollout-step kind, on real components (staged,
 * the built-in agent and one task, the model service in its own process, real cgroups and a real
 * staged checkpoint for fork): K = 2, B = 2, one step, fresh, warm-pool and fork, once with R = 0 and
 * dedup off, once with R = 2 and dedup per cell, under the same seeded faults (seed 12 puts a
 * sandbox kill on matched attempt (slot 0, member 1) and a model 503 on (slot 1, member 0), in every
 * cell, and no fault on their first retry). Checks: the same first-try faults in both runs; an
 * attempt counts once (its last try), its retries and their CPU apart, each try once; a lost sample
 * lowers the valid count but never the step time; rollout-step.csv's tries, retries, valid rate and
 * retries per valid sample with their intervals; a killed warm-pool sandbox is never claimed again;
 * a reward-cache hit never changes a reward; nothing left behind.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { ROLLOUT_STEP_FILE, ROLLOUT_STEP_HEADER } from '../../experiments/rollout-step/rollout-step-analysis.ts';
import { ROLLOUT_COST_FILE, ROLLOUT_COST_HEADER } from '../../experiments/rollout/sample-cost.ts';
import { RETRIABLE_CATEGORIES } from '../../experiments/rollout/retry-policy.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { tempDir } from '../support/temp-dirs.ts';

const dir = tempDir('sandbench-rollout-step-retries-');

interface Try {
  try: number;
  fault: string | null;
  fault_fired: boolean | null;
  category: string | null;
  cpu_ms: number | null;
  wall_ms: number;
  backoff_ms: number;
}

async function run(name: string, retries: string, dedup: string) {
  const spec = join(dir, `${name}.yaml`);
  writeFileSync(
    spec,
    `name: ${name}\nexperiment: rollout-step\narms: [{ backend: staged }]\nwarmups: 0\ntrials: 1\nseed: 12\ntimeout: 60s\nresamples: 200\n` +
      'rollout_step:\n  task_ids: [clamp-bounds]\n  group_size: [2]\n  tasks_per_step: 2\n  steps: 1\n  prefix: [fresh, warm-pool, fork]\n  pool_size: 2\n  concurrency: 2\n' +
      '  model: { slots: 2, base_ms: 10 }\n  trainer: { train_ms: 10ms, staleness: 0 }\n  scoring_backend: staged\n  wrong_fraction: 0.5\n' +
      `  retries: ${retries}\n  reward_dedup: ${dedup}\n  faults: { sandbox_kill: 0.25, kill_after_ms: 150, model_error: 0.25 }\n`,
  );
  const out = join(dir, name);
  const { records } = await runSpec({ specPath: spec, overrides: {}, out, requireAll: false, log: () => undefined, wiring: await runWiring() });
  const runId = JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8')).run_id as string;
  const csv = parseCsv(ROLLOUT_STEP_FILE, readFileSync(join(out, ROLLOUT_STEP_FILE), 'utf8'));
  const cost = parseCsv(ROLLOUT_COST_FILE, readFileSync(join(out, ROLLOUT_COST_FILE), 'utf8'));
  return { records, csv, cost, runId };
}

const triesOf = (record: TrialRecord) => record.facts.tries as Try[];
const matched = (r: TrialRecord) => `${String(r.facts.prefix)}|${String(r.facts.group_slot)}|${String(r.facts.group_member)}`;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

function nothingLeft(runId: string): void {
  expect(existsSync(runScratchDir(stateDir(), runId))).toBe(false);
  for (const root of ['/sys/fs/cgroup/memory', '/sys/fs/cgroup/cpuacct', '/sys/fs/cgroup'].filter(existsSync)) expect(readdirSync(root).filter((name) => name.includes(runId))).toEqual([]);
}

describe('rollout-step with retries, injected faults and reward dedup', () => {
  let r0: Awaited<ReturnType<typeof run>>;
  let r2: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    r0 = await run('step-r0', '{ max: 0 }', 'off');
    r2 = await run('step-r2', '{ max: 2, backoff_ms: 50 }', 'cell');
  }, 240_000);

  it('meets the same first-try faults in every cell and both runs; R=0 loses those samples, R=2 retries them', () => {
    expect(r0.records).toHaveLength(12);
    expect(r2.records).toHaveLength(12);
    const first = (records: TrialRecord[]) => new Map(records.map((r) => [matched(r), triesOf(r)[0]!.fault]));
    expect(first(r2.records)).toEqual(first(r0.records));
    for (const prefix of ['fresh', 'warm-pool', 'fork']) {
      const faults = r0.records.filter((r) => r.facts.prefix === prefix).map((r) => triesOf(r)[0]!.fault).sort();
      expect(faults, prefix).toEqual(['model_error', null, null, 'sandbox_kill'].sort());
    }
    for (const record of r0.records) {
      const [only] = triesOf(record);
      expect(triesOf(record)).toHaveLength(1);
      if (only!.fault === 'model_error' || only!.fault_fired === true) {
        expect(record.outcome, JSON.stringify(record.notes)).toBe('failed');
        expect(RETRIABLE_CATEGORIES).toContain(record.failure_category);
      } else {
        expect(record.outcome, `${matched(record)} ${JSON.stringify(record.notes)}`).toBe('ok');
      }
    }
    // the kill lands on a fresh and a forked sandbox well within its run
    for (const prefix of ['fresh', 'fork']) expect(r0.records.some((r) => r.facts.prefix === prefix && triesOf(r)[0]!.fault_fired === true), prefix).toBe(true);
    for (const record of r2.records) {
      expect(record.outcome, `${matched(record)} ${JSON.stringify(record.notes)}`).toBe('ok');
      const first = triesOf(record)[0]!;
      expect(triesOf(record)).toHaveLength(first.fault === 'model_error' || first.fault_fired === true ? 2 : 1);
    }
  });

  it('counts a retried attempt once, its retries and their CPU apart, each try once', () => {
    for (const record of r2.records) {
      const tries = triesOf(record);
      expect(record.metrics.tries).toBe(tries.length);
      expect(record.metrics.retries).toBe(tries.length - 1);
      for (const t of tries.slice(0, -1)) expect(RETRIABLE_CATEGORIES).toContain(t.category);
      for (const t of tries) expect(t.cpu_ms, 'every try has its own cgroup CPU').toBeGreaterThan(0);
      expect(record.metrics.attempt_cpu_ms).toBeCloseTo(sum(tries.map((t) => t.cpu_ms!)), 6);
      expect(record.metrics.retry_cpu_ms).toBeCloseTo(sum(tries.slice(0, -1).map((t) => t.cpu_ms!)), 6);
      expect(record.metrics.attempt_worker_ms).toBeCloseTo(sum(tries.map((t) => t.wall_ms + t.backoff_ms)), 6);
      // the group sees one attempt: its last try's wall
      expect(record.metrics.wall_ms).toBeCloseTo(tries.at(-1)!.wall_ms, 6);
      expect(record.facts.step_attempts).toBe(4);
    }
    for (const { csv, records } of [r0, r2]) {
      expect(csv.header).toEqual([...ROLLOUT_STEP_HEADER]);
      for (const row of csv.rows) {
        const mine = records.filter((r) => r.facts.prefix === row.prefix);
        const retries = sum(mine.map((r) => r.metrics.retries!));
        const valid = mine.filter((r) => r.outcome === 'ok').length;
        expect(Number(row.planned)).toBe(4);
        expect(Number(row.valid)).toBe(valid);
        expect(Number(row.tries)).toBe(4 + retries);
        expect(Number(row.retries)).toBe(retries);
        expect(Number(row.valid_rate)).toBeCloseTo(valid / 4, 9);
        expect(Number(row.valid_rate_ci95_low)).toBeLessThanOrEqual(valid / 4);
        expect(Number(row.valid_rate_ci95_high)).toBeGreaterThanOrEqual(valid / 4);
        expect(Number(row.retries_per_valid)).toBeCloseTo(retries / valid, 9);
        expect(Number(row.retry_cpu_s)).toBeCloseTo(sum(mine.map((r) => r.metrics.retry_cpu_ms!)) / 1000, 6);
        if (retries > 0) {
          expect(Number(row.retries_per_valid_ci95_low)).toBeLessThanOrEqual(retries / valid);
          expect(Number(row.retries_per_valid_ci95_high)).toBeGreaterThanOrEqual(retries / valid);
          expect(Number(row.recovered_by_retry), 'each retried attempt recovered on its first retry').toBe(retries);
        }
      }
    }
    expect(r2.cost.header).toEqual([...ROLLOUT_COST_HEADER]);
    expect(r2.cost.rows).toHaveLength(3);
    expect(sum(r2.cost.rows.map((row) => Number(row.tries)))).toBe(sum(r2.records.map((r) => triesOf(r).length)));
  });

  it('keeps the time of a lost sample in its step, and every try of a retried one', () => {
    for (const { records } of [r0, r2]) {
      for (const record of records) {
        const step = record.metrics.step_ms!;
        expect(step, 'a failed attempt still holds its step').toBeGreaterThan(0);
        // the step spans the attempt from its first try's start to its last try's end
        expect(step).toBeGreaterThanOrEqual(record.metrics.attempt_worker_ms! - 1);
      }
    }
    for (const prefix of ['fresh', 'fork']) {
      const row = r0.csv.rows.find((r) => r.prefix === prefix)!;
      expect(Number(row.valid), 'R=0 loses the faulted samples').toBe(2);
      expect(row.steps, 'the step keeps its time').toBe('1');
      expect(Number(row.step_p50_ms)).toBeGreaterThan(0);
      expect(r0.records.find((r) => r.facts.prefix === prefix)!.facts.step_valid).toBe(2);
    }
  });

  it('never claims a warm-pool sandbox twice: a killed one is not returned to the pool', () => {
    for (const { records } of [r0, r2]) {
      const pooled = records.filter((r) => r.facts.prefix === 'warm-pool');
      const claimed = pooled.map((r) => r.facts.pool_entry).filter((id) => id !== null);
      expect(claimed.length, 'the pool is filled before the step').toBeGreaterThan(0);
      expect(new Set(claimed).size).toBe(claimed.length);
      const pool = pooled[0]!.facts.pool as { claims: number; expired: number };
      expect(pool.claims, 'one claim per attempt: a retry starts fresh').toBe(4);
      expect(pool.expired).toBe(0);
    }
    for (const { csv } of [r0, r2]) expect(csv.rows.find((row) => row.prefix === 'warm-pool')!.pool_unclaimed_cpu_s, 'the pool\'s waste is measured').not.toBe('');
  });

  it('a reward-cache hit gives the reward fresh scoring gave, and its source its own', () => {
    const hits = r2.records.filter((r) => (r.facts.reward_cache as { hit?: boolean } | undefined)?.hit === true);
    expect(hits.length, 'one task, two paths, four attempts a cell: identical candidates recur').toBeGreaterThan(0);
    expect(r0.records.every((r) => r.facts.reward_cache === undefined)).toBe(true);
    const r0By = new Map(r0.records.map((r) => [matched(r), r]));
    let compared = 0;
    for (const hit of hits) {
      const lookup = hit.facts.reward_cache as { source_attempt: string };
      const source = r2.records.find((r) => triesOf(r).some((t) => (t.try === 0 ? r.facts.attempt_id : `${String(r.facts.attempt_id)}-r${t.try}`) === lookup.source_attempt));
      expect(source, lookup.source_attempt).toBeDefined();
      expect(hit.metrics.reward).toBe(source!.metrics.reward);
      const fresh = r0By.get(matched(hit))!;
      if (fresh.outcome !== 'ok') continue;
      expect(hit.metrics.reward).toBe(fresh.metrics.reward);
      expect(hit.facts.tests_passed).toEqual(fresh.facts.tests_passed);
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
    for (const record of r2.records) {
      const other = r0By.get(matched(record))!;
      if (other.outcome === 'ok') expect(record.metrics.reward).toBe(other.metrics.reward);
    }
    nothingLeft(r0.runId);
    nothingLeft(r2.runId);
  });
});
