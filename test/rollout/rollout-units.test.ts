/**
 * The rollout kind's pure parts: the plan (seeded cell order, attempt k the same rollout in every
 * cell), arm variants, the spec section's errors, phases that sum to the wall, the bottleneck rule,
 * throughput windows and the paired reward delta.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKindSpec, parseSpec } from '../../experiments/registry.ts';
import { bottleneckOf, attemptPhases, attemptTraffic, busySlotMs, modelSpanMs } from '../../experiments/rollout/rollout-phases.ts';
import { attemptAssignment, buildRolloutPlan, cellRunKey } from '../../experiments/rollout/rollout-plan.ts';
import { parseRolloutArm } from '../../experiments/rollout/rollout-arms.ts';
import { rewardDeltas, timeWindows } from '../../experiments/rollout/rollout-analysis.ts';
import { kindChartSpec } from '../../reports/plots/plot-specs.ts';
import { agentExitCategory, shouldRetain } from '../../experiments/rollout/rollout-attempt.ts';
import type { ModelJournalEntry } from '../../services/model/index.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

const doc = (rollout: Record<string, unknown>, arms: unknown[] = [{ backend: 'host' }, { backend: 'staged' }]) =>
  ({ name: 'r', experiment: 'rollout', arms, warmups: 0, trials: 1, seed: 5, timeout: '60s', rollout });

describe('rollout plan and spec', () => {
  it('cells = arm × C × capacity in a seeded order; each cell is its attempts in a row; attempt k is the same task and path everywhere', () => {
    const spec = parseSpec(doc({ attempts: 3, concurrency: [1, 4], concurrency_by_backend: { staged: [2] }, model: [{ slots: 1, base_ms: 10 }, { slots: 2 }] }));
    const plan = buildRolloutPlan(spec);
    expect(plan.trials).toHaveLength((2 + 1) * 2 * 3);
    expect(buildRolloutPlan(spec)).toEqual(plan);
    const cells = [...new Set(plan.trials.map((t) => t.params!.cell))];
    expect(cells).toHaveLength(6);
    for (const cell of cells) {
      const positions = plan.trials.filter((t) => t.params!.cell === cell).map((t) => t.position);
      expect(positions[positions.length - 1]! - positions[0]!).toBe(2);
    }
    expect(cells.filter((c) => String(c).startsWith('staged-')).every((c) => String(c).includes('-c2-'))).toBe(true);
    // attempts_by_backend replaces `attempts` for that backend only.
    const fewer = buildRolloutPlan(parseSpec(doc({ attempts: 3, attempts_by_backend: { staged: 1 }, concurrency: [1] })));
    expect(fewer.trials.filter((t) => t.arm.backend === 'staged')).toHaveLength(1);
    expect(fewer.trials.filter((t) => t.arm.backend !== 'staged')).toHaveLength(3);
    const a = attemptAssignment(5, 7, 9, 0.25);
    expect(attemptAssignment(5, 7, 9, 0.25)).toEqual(a);
    const paths = Array.from({ length: 400 }, (_, k) => attemptAssignment(5, k, 9, 0.25).path);
    expect(paths.filter((p) => p === 'wrong').length / 400).toBeGreaterThan(0.18);
    expect(paths.filter((p) => p === 'wrong').length / 400).toBeLessThan(0.32);
  });

  it('warm-up blocks run every cell first, marked, and leave the formal blocks as they were', () => {
    const rollout = { attempts: 2, blocks: 2, concurrency: [1, 4] };
    const plain = buildRolloutPlan(parseSpec(doc(rollout)));
    const warmed = buildRolloutPlan(parseSpec(doc({ ...rollout, warmup_blocks: 1 })));
    expect(warmed.warmup_blocks).toBe(1);
    const warmups = warmed.trials.filter((t) => t.warmup);
    // One block: every cell (2 arms × 2 levels) once, before any formal trial.
    expect(warmups).toHaveLength(2 * 2 * 2);
    expect(warmed.trials.slice(0, warmups.length).every((t) => t.warmup && t.trial_id.startsWith('w0000-') && t.block === 0)).toBe(true);
    expect(new Set(warmups.map((t) => t.params!.cell))).toEqual(new Set(plain.trials.map((t) => t.params!.cell)));
    // The formal trials are the plain plan's (ids, seeds, blocks, params, order), positions shifted by the warm-up.
    const formal = warmed.trials.filter((t) => !t.warmup);
    expect(formal.map(({ position, ...t }) => ({ ...t, position: position - warmups.length }))).toEqual(plain.trials);
    // Warm-up block 0 and formal block 0 are different cell runs.
    const runKeys = (trials: typeof warmed.trials) => new Set(trials.map(cellRunKey));
    const warmKeys = runKeys(warmups);
    expect([...runKeys(formal)].some((key) => warmKeys.has(key))).toBe(false);
    expect(() => parseSpec(doc({ warmup_blocks: -1 }))).toThrow(/rollout\.warmup_blocks/);
  });

  it('bad input names the field; the shipped specs load', () => {
    expect(() => parseSpec(doc({ retain: 'some' }))).toThrow(/rollout\.retain/);
    expect(() => parseSpec(doc({ concurrency: [2, 2] }))).toThrow(/rollout\.concurrency.*listed twice/);
    expect(() => parseSpec(doc({ model: [{ slots: 0 }] }))).toThrow(/rollout\.model\.0\.slots/);
    expect(() => buildRolloutPlan(parseSpec(doc({}, [{ backend: 'host', variant: 'builtin+lose-all' }])))).toThrow(/arms\[0\]\.variant: unknown fault "\+lose-all"/);
    for (const name of ['rollout.yaml', 'rollout-ci.yaml']) expect(buildRolloutPlan(loadKindSpec(join(PROJECT_ROOT, 'experiments', 'specs', name)).spec).trials.length).toBeGreaterThan(0);
  });

  it('arm variants: builtin by default, agent-kind CLIs, the labelled faulty variant', () => {
    expect(parseRolloutArm({ backend: 'host', variant: null })).toMatchObject({ cli: null, agentName: 'builtin', fault: null });
    expect(parseRolloutArm({ backend: 'staged', variant: 'codex' })).toMatchObject({ agentName: 'codex', fault: null });
    expect(parseRolloutArm({ backend: 'staged', variant: 'builtin+drop-last-write' })).toMatchObject({ agentName: 'builtin', fault: 'drop-last-write' });
    expect(() => parseRolloutArm({ backend: 'host', variant: 'kodex' })).toThrow(/unknown agent "kodex"/);
  });
});

const ns = (ms: number) => String(BigInt(Math.round(ms * 1e6)));
function entry(arrival: number, start: number, end: number, extra: Partial<ModelJournalEntry> = {}): ModelJournalEntry {
  return {
    schema: 'sandbench-model-journal/1', seq: 1, t_arrival_ns: ns(arrival), t_enqueued_ns: ns(arrival), t_service_start_ns: ns(start), t_service_end_ns: ns(end),
    t_scheduled_start_ns: ns(start), t_due_end_ns: ns(end), wall_arrival: '', queue_wait_ms: start - arrival, service_ms: end - start, method: 'POST', path: '/v1/chat/completions',
    endpoint: 'chat', stream: false, model: 'm', script_id: 's', task_id: 't', attempt: 'a', turn: 0, reply: 'tool', tool_name: 'bash', tool_results: 0, tokens: 1, queue_depth: 0,
    http_status: 200, status: 'ok', error: null, request_bytes: 1, request_sha256: '', response_bytes: 1, response_sha256: '', user_agent: null, ...extra,
  };
}

describe('rollout phases and attribution', () => {
  it('phases are contiguous and sum to the wall; model time is queue + service from the journal', () => {
    const stamps = { start: 0n, staged: 100_000_000n, launched: 120_000_000n, exit: 2_000_000_000n, scored: 2_500_000_000n, end: 2_600_000_000n };
    const traffic = attemptTraffic([entry(500, 600, 900), entry(1200, 1200, 1500), entry(1600, 1600, 1700, { endpoint: 'head' })]);
    const phases = attemptPhases(stamps, traffic);
    expect(phases).toMatchObject({ prepare_ms: 100, ready_ms: 400, model_ms: 700, tool_ms: 800, evaluation_ms: 500, drop_ms: 100, wall_ms: 2600, substrate_ms: 1900 });
    expect(phases.prepare_ms + phases.ready_ms + phases.model_ms + phases.tool_ms + phases.evaluation_ms + phases.drop_ms).toBeCloseTo(phases.wall_ms, 9);
    expect(traffic).toMatchObject({ generations: 2, queueMs: 100, serviceMs: 600 });
    expect(busySlotMs([entry(0, 0, 300), entry(0, 350, 600, { t_scheduled_start_ns: ns(300) })])).toBeCloseTo(600, 6);
    expect(modelSpanMs([entry(100, 100, 300), entry(200, 300, 700)])).toBeCloseTo(600, 6);
  });

  it('the bottleneck rule: model-bound at ≥ 90% utilization or when queue wait dominates; substrate-bound when the substrate dominates at low utilization', () => {
    expect(bottleneckOf(0.95, 10, 500, 1000)).toBe('model-bound');
    expect(bottleneckOf(0.6, 600, 500, 1500)).toBe('model-bound');
    expect(bottleneckOf(0.05, 0, 950, 1000)).toBe('substrate-bound');
    expect(bottleneckOf(0.7, 100, 600, 1000)).toBe('mixed');
  });

  it('exit categories and the retain policy', () => {
    const exit = (exitCode: number | null, signal: string | null = null) => ({ exitCode, signal, timedOut: false, tExitNs: 0n });
    expect(agentExitCategory(exit(0), true, false)).toBeNull();
    expect(agentExitCategory(exit(3), true, false)?.category).toBe('upstream_failed');
    expect(agentExitCategory(exit(4), true, false)?.category).toBe('task_failed');
    expect(agentExitCategory(exit(null, 'SIGKILL'), true, false)?.category).toBe('killed_externally');
    expect(agentExitCategory(exit(137), true, true)?.category).toBe('task_failed');
    expect(agentExitCategory({ ...exit(null), timedOut: true }, true, true)?.category).toBe('timeout');
    const score = (reward: number) => ({ reward, passed: [], failed: [] });
    expect([shouldRetain('all', null), shouldRetain('none', score(1)), shouldRetain('rewarded', score(1)), shouldRetain('rewarded', score(0)), shouldRetain('failed', null)]).toEqual([true, false, true, false, true]);
  });

  it('throughput windows count completions per equal slice of the wall; the reward delta pairs attempts across arms', () => {
    expect(timeWindows([10, 20, 260, 990], 1000, 4).map((w) => w.count)).toEqual([2, 1, 0, 1]);
    const record = (arm: string, k: number, reward: number): TrialRecord => ({
      run_id: 'r', schema_version: 1, experiment: 'rollout', arm: { backend: arm.split(':')[0]!, variant: arm.split(':')[1] ?? null }, block: 0, position: k, trial_id: `t-${arm}-${k}`,
      warmup: false, seed: 1, outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null,
      metrics: { reward }, validity: {}, notes: [], facts: { arm_label: arm, cell: `${arm}-c2-s1b0p0`, attempt_index: k },
    });
    const records = [0, 1, 2, 3, 4, 5, 6, 7].flatMap((k) => [record('host', k, k % 4 === 0 ? 0 : 1), record('staged', k, k % 4 === 0 ? 0 : 1), record('host:builtin+drop-last-write', k, 0)]);
    const deltas = rewardDeltas(records, ['host', 'staged', 'host:builtin+drop-last-write'], 2000, 'r');
    expect(deltas.map((d) => [d.candidate, d.pairs, d.delta])).toEqual([['staged', 8, 0], ['host:builtin+drop-last-write', 8, -0.75]]);
    // 0/1 rewards are paired proportions: identical arms get an interval around 0 (never the point
    // [0, 0] a bootstrap of equal pairs gives) and McNemar p = 1; the faulty arm loses the 6
    // attempts the control solved: McNemar exact p = 2/2^6, Newcombe's interval below 0.
    expect(deltas[0]!.comparison).toMatchObject({ design: 'paired proportions', p: 1, conclusion: 'no detected difference' });
    expect(deltas[0]!.ci!.low).toBeLessThan(0);
    expect(deltas[0]!.ci!.high).toBeGreaterThan(0);
    expect(deltas[1]!.comparison).toMatchObject({ table: { both: 0, candidateOnly: 0, controlOnly: 6, neither: 2 }, conclusion: 'candidate lower' });
    expect(deltas[1]!.comparison!.p).toBeCloseTo(2 / 64, 12);
    expect(deltas[1]!.ci!.high).toBeLessThan(0);
  });

  it('a stacked-bar kind chart becomes a stacked vega-lite bar (the phase panels)', () => {
    const spec = kindChartSpec({ id: 'p', title: 't', x: { title: 'C' }, y: { title: 'ms' }, mark: 'stacked-bar', points: [{ series: 'prepare', x: 1, y: 5 }, { series: 'model', x: 1, y: 7 }] }) as unknown as { mark: { type: string }; encoding: { y: { stack: string }; x: { type: string } } };
    expect(spec.mark.type).toBe('bar');
    expect(spec.encoding.y.stack).toBe('zero');
    expect(spec.encoding.x.type).toBe('ordinal');
  });
});
