/**
 * The pure halves of issue 31 items 4–6: which failures are retried and how long a retry waits;
 * which try gets which injected fault (seeded, at its rate) and how a model-error try is routed;
 * the reward cache's single flight and what it never caches; the cost of a valid sample from
 * records (every attempt in the denominator, the harness apart, USD only from a given rate card).
 */
import { describe, expect, it } from 'vitest';
import { backoffMs, runWithRetries, tryRouteId } from '../../experiments/rollout/retry-policy.ts';
import { faultFor, MODEL_ERROR_SUFFIX, tryCommand, withModelErrorTasks } from '../../experiments/rollout/fault-injection.ts';
import { RewardCache } from '../../experiments/rollout/reward-cache.ts';
import type { ScoringResult } from '../../experiments/rollout/score-candidate.ts';
import { summarizeCosts, TAX_TRAJECTORY_STEPS } from '../../experiments/rollout/sample-cost.ts';
import { parseModelScript, MODEL_SCRIPT_SCHEMA } from '../../services/model/index.ts';
import type { FailureCategory, TrialRecord } from '../../harness/journal/trial-record.ts';

describe('retry policy', () => {
  const policy = { max: 2, backoff_ms: 100 };
  const sequence = async (categories: (FailureCategory | null)[]) => {
    const slept: number[] = [];
    const result = await runWithRetries(policy, async (i) => categories[i] ?? null, { categoryOf: (c) => c, sleep: async (ms) => void slept.push(ms) });
    return { tries: result.tries, backoffs: result.backoffs, slept };
  };

  it('retries infrastructure failures up to max with doubling backoff; never a success, a task failure or an OOM', async () => {
    expect(await sequence(['setup_failed', 'upstream_failed', null])).toEqual({ tries: ['setup_failed', 'upstream_failed', null], backoffs: [0, 100, 200], slept: [100, 200] });
    expect((await sequence(['killed_externally', 'killed_externally', 'killed_externally', null])).tries).toHaveLength(3);
    expect((await sequence([null])).tries).toEqual([null]);
    expect((await sequence(['task_failed', null])).tries).toEqual(['task_failed']);
    expect((await sequence(['oom', null])).tries).toEqual(['oom']);
    expect((await sequence(['isolation_refused', null])).tries).toEqual(['isolation_refused']);
    expect(backoffMs(policy, 0)).toBe(0);
    expect(backoffMs(policy, 3)).toBe(400);
  });

  it('stops retrying once the run is stopping', async () => {
    const result = await runWithRetries(policy, async () => 'timeout' as FailureCategory, { categoryOf: (c) => c, stopped: () => true, sleep: async () => undefined });
    expect(result.tries).toHaveLength(1);
  });

  it('a retry gets its own route id; the first try keeps the attempt id', () => {
    expect(tryRouteId('b0-a1', 0)).toBe('b0-a1');
    expect(tryRouteId('b0-a1', 2)).toBe('b0-a1-r2');
  });
});

describe('fault injection', () => {
  const plan = { sandbox_kill: 0.1, kill_after_ms: 500, model_error: 0.2 };

  it('draws each try at its rate, the same for the same seed, attempt and try', () => {
    const draws = Array.from({ length: 4000 }, (_, i) => faultFor(plan, 5, i, 0));
    expect(draws.filter((d) => d === 'sandbox_kill').length / 4000).toBeCloseTo(0.1, 1);
    expect(draws.filter((d) => d === 'model_error').length / 4000).toBeCloseTo(0.2, 1);
    expect(Array.from({ length: 4000 }, (_, i) => faultFor(plan, 5, i, 0))).toEqual(draws);
    expect(Array.from({ length: 200 }, (_, i) => faultFor(plan, 5, i, 1))).not.toEqual(draws.slice(0, 200));
    expect(faultFor(undefined, 5, 0, 0)).toBeNull();
  });

  it('routes a model-error try to a failing twin that is a valid script task', () => {
    const script = parseModelScript({ schema: MODEL_SCRIPT_SCHEMA, id: 's', tasks: [{ id: 't1.right', turns: [{ shell: 'ls' }, { text: 'done' }] }, { id: 't2', turns: [{ text: 'done' }] }] }, 'test');
    const twinned = parseModelScript(withModelErrorTasks(script, plan), 'twinned');
    expect(twinned.tasks.map((t) => t.id)).toEqual(['t1.right', 't2', `t1.right${MODEL_ERROR_SUFFIX}`, `t2${MODEL_ERROR_SUFFIX}`]);
    expect(twinned.tasks[2]!.turns).toEqual([{ shell: 'ls' }, expect.objectContaining({ fail: 503, retry: false })]);
    expect(withModelErrorTasks(script, { ...plan, model_error: 0 })).toBe(script);
    const command = { argv: ['x'], env: { SANDBENCH_MODEL_ROUTE: '/t/t1.right/a/b0-a1' }, stdin: 'none' as const };
    expect(tryCommand(command, 'b0-a1-r1', 'model_error').env.SANDBENCH_MODEL_ROUTE).toBe(`/t/t1.right${MODEL_ERROR_SUFFIX}/a/b0-a1-r1`);
    expect(tryCommand(command, 'b0-a1', 'sandbox_kill').env.SANDBENCH_MODEL_ROUTE).toBe('/t/t1.right/a/b0-a1');
  });
});

describe('reward cache', () => {
  const scored = (reward: number): ScoringResult => ({ score: { reward, passed: [], failed: [] } as unknown as ScoringResult['score'], failure: null, scoring: { exit_code: 0, ms: 5, stdout_tail: '' }, parsedNs: 1n, trial: null });
  const failed: ScoringResult = { score: null, failure: { category: 'setup_failed', note: 'no sandbox', stage: 'start' }, scoring: null, parsedNs: null, trial: null };

  it('scores concurrent identical candidates once and never caches a scoring failure', async () => {
    const cache = new RewardCache('cell');
    let calls = 0;
    const slow = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return scored(1);
    };
    const [a, b] = await Promise.all([cache.score('k', 'a1', slow), cache.score('k', 'a2', slow)]);
    expect(calls).toBe(1);
    expect([a.lookup.hit, b.lookup.hit]).toEqual([false, true]);
    expect(b.lookup.source_attempt).toBe('a1');
    expect(b.result.score).toEqual(a.result.score);
    expect((await cache.score('other', 'a3', async () => failed)).lookup.hit).toBe(false);
    expect((await cache.score('other', 'a4', async () => scored(0))).lookup.hit).toBe(false);
    expect((await cache.score('other', 'a5', async () => scored(1))).result.score!.reward).toBe(0);
  });
});

describe('cost of a valid sample', () => {
  const record = (index: number, outcome: 'ok' | 'failed', metrics: Record<string, number>, facts: Record<string, unknown> = {}): TrialRecord =>
    ({ trial_id: `t${index}`, warmup: false, block: 0, arm: { backend: 'host', variant: null }, outcome, failure_category: outcome === 'ok' ? null : 'upstream_failed', t_spawn_ns: '1', metrics: { cell_harness_cpu_ms: 900, ...metrics }, facts: { cell: 'host-c2', cell_run: 'r1', arm_label: 'host', concurrency: 2, ...facts } }) as unknown as TrialRecord;

  it('divides every attempt\'s cost, failed ones included, by the valid samples; the harness apart; USD only from the rate card', () => {
    const records = [
      record(0, 'ok', { tries: 2, retries: 1, attempt_cpu_ms: 300, retry_cpu_ms: 100, attempt_gib_s: 0.2, attempt_worker_ms: 3000, retry_worker_ms: 1000, wall_ms: 2000, model_ms: 500, tool_ms: 300, model_requests: 3 }),
      record(1, 'ok', { tries: 1, retries: 0, attempt_cpu_ms: 200, retry_cpu_ms: 0, attempt_gib_s: 0.1, attempt_worker_ms: 2000, retry_worker_ms: 0, wall_ms: 2000, model_ms: 500, tool_ms: 300, model_requests: 3 }),
      record(2, 'failed', { tries: 3, retries: 2, attempt_cpu_ms: 100, retry_cpu_ms: 70, attempt_gib_s: 0.05, attempt_worker_ms: 1000, retry_worker_ms: 700, wall_ms: 300, model_ms: 100, tool_ms: 0, model_requests: 1 }),
    ];
    const [cost] = summarizeCosts(records, { retries: { max: 2, backoff_ms: 0 }, rate_card: { source: 'test card', usd_per_cpu_hour: 0.04 } }, 200, 'run');
    expect(cost!.attempts).toBe(3);
    expect(cost!.valid).toBe(2);
    expect(cost!.tries).toBe(6);
    expect(cost!.validRate.value).toBeCloseTo(2 / 3, 12);
    expect(cost!.retriesPerValid).toBe(1.5);
    expect(cost!.recoveredByRetry).toBe(1);
    expect(cost!.retryCpuS).toBeCloseTo(0.17, 12);
    expect(cost!.cpuSPerValid.value).toBeCloseTo(0.6 / 2, 12);
    expect(cost!.gibSPerValid.value).toBeCloseTo(0.35 / 2, 12);
    expect(cost!.workerSPerValid.value).toBeCloseTo(3, 12);
    expect(cost!.workerHoursPer1mValid.value).toBeCloseTo((3 * 1e6) / 3600, 6);
    // × 150: (6000 − 1600 − 600 − ... substrate ms ÷ 2 valid) + 150 × tool ms per step of valid samples
    const fixedPerValid = ((3000 - 800) + (2000 - 800) + (1000 - 100)) / 2;
    expect(cost!.workerHoursPer1mX150.value).toBeCloseTo(((fixedPerValid + TAX_TRAJECTORY_STEPS * (600 / 6)) / 1000) * (1e6 / 3600), 6);
    expect(cost!.workerHoursPer1mValid.ci!.low).toBeLessThanOrEqual(cost!.workerHoursPer1mValid.value!);
    expect(cost!.harnessCpuSPerValid).toBeCloseTo(0.9 / 2, 12);
    expect(cost!.usdPer1mValid).toBeCloseTo(0.04 * (0.3 * 1e6) / 3600, 9);
    expect(summarizeCosts(records, {}, 200, 'run')[0]!.usdPer1mValid).toBeNull();
  });
});
