/**
 * Issue 31 items 4–6 on real components (host backend, the built-in agent and tasks, the model
 * service in its own process, real cgroups): one seed run with R=0 and reward dedup off, and with
 * R=2 and dedup per cell, under the same injected faults. The first try of every attempt meets the
 * same fault in both runs; retries only ever repeat the attempt's task and path; every try is
 * costed once (attempt cost = Σ tries, retry cost = Σ earlier tries, rollout-cost.csv's tries =
 * attempts + retries); and a reward-cache hit gives exactly the reward fresh scoring gave the same
 * attempt in the other run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { ROLLOUT_COST_HEADER } from '../../experiments/rollout/sample-cost.ts';
import { tempDir } from '../support/temp-dirs.ts';

const dir = tempDir('sandbench-retries-dedup-');

interface Try {
  try: number;
  fault: string | null;
  category: string | null;
  cpu_ms: number | null;
  wall_ms: number;
  backoff_ms: number;
  gib_s: number | null;
}

async function run(name: string, retries: string, dedup: string) {
  const spec = join(dir, `${name}.yaml`);
  writeFileSync(
    spec,
    `name: ${name}\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 7\ntimeout: 120s\nresamples: 200\n` +
      'rollout:\n  task_ids: [clamp-bounds, slug-collapse]\n  attempts: 8\n  concurrency: [2]\n  model: [{ slots: 2, base_ms: 0 }]\n  scoring_backend: host\n  wrong_fraction: 0.5\n' +
      `  retries: ${retries}\n  reward_dedup: ${dedup}\n  faults: { sandbox_kill: 0.2, kill_after_ms: 300, model_error: 0.2 }\n`,
  );
  const out = join(dir, name);
  const { records } = await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
  const cost = parseCsv('rollout-cost.csv', readFileSync(join(out, 'rollout-cost.csv'), 'utf8'));
  const byIndex = new Map(records.map((r) => [Number(r.facts.attempt_index), r]));
  return { records, cost, byIndex };
}

const triesOf = (record: TrialRecord) => record.facts.tries as Try[];
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('retries, injected faults, reward dedup and the cost of a valid sample', () => {
  let r0: Awaited<ReturnType<typeof run>>;
  let r2: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    r0 = await run('r0-nodedup', '{ max: 0 }', 'off');
    r2 = await run('r2-dedup', '{ max: 2, backoff_ms: 50 }', 'cell');
  }, 300_000);

  it('the same first-try faults in both runs; retries repeat the task and path; nothing double counted', () => {
    expect(r0.records).toHaveLength(8);
    expect(r2.records).toHaveLength(8);
    const firstFaults = (records: TrialRecord[]) => records.map((r) => [r.facts.attempt_index, triesOf(r)[0]!.fault]).sort();
    expect(firstFaults(r2.records)).toEqual(firstFaults(r0.records));
    expect(r0.records.filter((r) => triesOf(r)[0]!.fault !== null).length, 'the seed injects faults').toBeGreaterThan(0);
    for (const record of r0.records) expect(triesOf(record)).toHaveLength(1);
    for (const record of [...r0.records, ...r2.records]) {
      const tries = triesOf(record);
      expect(record.metrics.tries).toBe(tries.length);
      // every try but the last failed retriably: a success or a task failure is never retried
      for (const t of tries.slice(0, -1)) expect(['setup_failed', 'upstream_failed', 'killed_externally', 'recording_failed', 'timeout']).toContain(t.category);
      expect(record.metrics.attempt_cpu_ms).toBeCloseTo(sum(tries.map((t) => t.cpu_ms!)), 6);
      expect(record.metrics.retry_cpu_ms).toBeCloseTo(sum(tries.slice(0, -1).map((t) => t.cpu_ms!)), 6);
      expect(record.metrics.attempt_worker_ms).toBeCloseTo(sum(tries.map((t) => t.wall_ms + t.backoff_ms)), 6);
      for (const t of tries) expect(t.cpu_ms, 'every try has its cgroup CPU').toBeGreaterThan(0);
    }
    const row = r2.cost.rows[0]!;
    expect(r2.cost.header).toEqual([...ROLLOUT_COST_HEADER]);
    expect(Number(row.tries)).toBe(8 + Number(row.retries));
    expect(Number(row.tries)).toBe(sum(r2.records.map((r) => triesOf(r).length)));
    expect(Number(row.retry_cpu_s)).toBeCloseTo(sum(r2.records.map((r) => r.metrics.retry_cpu_ms!)) / 1000, 6);
    expect(Number(row.cpu_s_per_valid)).toBeCloseTo(sum(r2.records.map((r) => r.metrics.attempt_cpu_ms!)) / 1000 / Number(row.valid), 6);
    expect(Number(r0.cost.rows[0]!.retries)).toBe(0);
    // failures never leave the denominator; retries recover infrastructure failures
    expect(Number(r0.cost.rows[0]!.attempts)).toBe(8);
    expect(Number(row.valid)).toBeGreaterThanOrEqual(Number(r0.cost.rows[0]!.valid));
    expect(Number(row.harness_cpu_s_per_valid)).toBeGreaterThan(0);
  });

  it('a reward-cache hit gives the reward fresh scoring gave the same attempt, and the reward of the attempt it reuses', () => {
    const hits = r2.records.filter((r) => (r.facts.reward_cache as { hit?: boolean } | undefined)?.hit === true);
    expect(hits.length, 'two tasks, two paths, eight attempts: identical candidates recur').toBeGreaterThan(0);
    expect(r0.records.every((r) => r.facts.reward_cache === undefined)).toBe(true);
    let compared = 0;
    for (const hit of hits) {
      const lookup = hit.facts.reward_cache as { source_attempt: string; saved_ms: number };
      const source = r2.records.find((r) => r.facts.attempt_id === lookup.source_attempt || triesOf(r).some((t) => `${r.facts.attempt_id}-r${t.try}` === lookup.source_attempt));
      expect(source, lookup.source_attempt).toBeDefined();
      expect(hit.metrics.reward).toBe(source!.metrics.reward);
      expect(hit.metrics.scoring_saved_ms).toBeGreaterThan(0);
      const fresh = r0.byIndex.get(Number(hit.facts.attempt_index))!;
      if (fresh.outcome !== 'ok') continue;
      expect(fresh.facts.reward_cache).toBeUndefined();
      expect(hit.metrics.reward).toBe(fresh.metrics.reward);
      expect(hit.facts.tests_passed).toEqual(fresh.facts.tests_passed);
      compared++;
    }
    expect(compared).toBeGreaterThan(0);
    // every attempt scored in both runs has one reward, cached or not
    for (const record of r2.records.filter((r) => r.outcome === 'ok')) {
      const other = r0.byIndex.get(Number(record.facts.attempt_index))!;
      if (other.outcome === 'ok') expect(record.metrics.reward).toBe(other.metrics.reward);
    }
    expect(Number(r2.cost.rows[0]!.dedup_hits)).toBe(hits.length);
  });
});
