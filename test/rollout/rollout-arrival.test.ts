/**
 * Arrival and admission in the rollout kind (issue 31, item 2): arrival modes and caps as cell
 * coordinates (default cells unchanged), the spec's errors, start failures kept apart from task
 * failures, and the arrival figures from records — valid samples/s over cell runs, the start-failure
 * rate with Wilson's interval, P99 only from 100 starts, the best cap with its paired ratio interval;
 * and one real burst on the host under a cap of 1.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { parseSpec } from '../../experiments/registry.ts';
import { buildRolloutPlan } from '../../experiments/rollout/rollout-plan.ts';
import { attemptSchedule, startFailureCategory } from '../../experiments/rollout/attempt-start.ts';
import { arrivalExtension, compareCaps, pairedRatio, summarizeArrivalCells, withArrivalFigures, ROLLOUT_ARRIVAL_FILE, ROLLOUT_CAPS_FILE } from '../../experiments/rollout/rollout-arrival-analysis.ts';
import { rolloutKindAnalysis } from '../../experiments/rollout/rollout-analysis.ts';
import type { AnalysisInput } from '../../harness/analyze/kind-analysis.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { wilsonInterval } from '../../harness/stats/index.ts';
import type { JobTiming } from '../../harness/schedule/index.ts';

const doc = (rollout: Record<string, unknown>) => ({ name: 'r', experiment: 'rollout', arms: [{ backend: 'host' }, { backend: 'staged' }], warmups: 0, trials: 1, seed: 5, timeout: '60s', rollout });

describe('arrival and admission in the rollout plan', () => {
  it('each arrival × cap is a cell, labelled safely; the default schedule keeps the labels and params it had', () => {
    const plan = buildRolloutPlan(parseSpec(doc({ attempts: 2, concurrency: [4], arrival: ['burst(4)', 'poisson(2)'], admission_cap: [8, 'none'] })));
    const cells = [...new Set(plan.trials.map((t) => String(t.params!.cell)))];
    expect(cells).toHaveLength(2 * 2 * 2);
    expect(cells).toContain('host-c4-s4b50p0-burst4-cap8');
    expect(cells).toContain('staged-c4-s4b50p0-poisson2-capnone');
    const trial = plan.trials.find((t) => t.params!.cell === 'host-c4-s4b50p0-burst4-cap8')!;
    expect(trial.params).toMatchObject({ arrival: 'burst(4)', admission_cap: 8 });
    const plain = buildRolloutPlan(parseSpec(doc({ attempts: 1, concurrency: [2] })));
    expect(plain.trials.map((t) => t.params!.cell).sort()).toEqual(['host-c2-s4b50p0', 'staged-c2-s4b50p0']);
    expect(Object.keys(plain.trials[0]!.params!)).toEqual(['cell', 'concurrency', 'slots', 'base_ms', 'per_token_ms', 'attempt']);
  });

  it('refuses a malformed arrival or cap, naming the field', () => {
    expect(() => parseSpec(doc({ arrival: ['open'] }))).toThrow(/rollout\.arrival.*burst\(N\)/s);
    expect(() => parseSpec(doc({ arrival: ['burst(8)', 'burst(8)'] }))).toThrow(/listed twice/);
    expect(() => parseSpec(doc({ admission_cap: [0] }))).toThrow(/rollout\.admission_cap/);
    expect(() => parseSpec(doc({ admission_cap: ['unlimited'] }))).toThrow(/rollout\.admission_cap/);
  });
});

describe('start failures', () => {
  it('a sandbox gone before its first line is infrastructure, never the task; other categories are kept', () => {
    expect(startFailureCategory('task_failed', true)).toMatchObject({ category: 'setup_failed', note: expect.stringContaining('start failure') });
    expect(startFailureCategory('timeout', true)).toEqual({ category: 'timeout', note: null });
    expect(startFailureCategory('task_failed', false)).toEqual({ category: 'task_failed', note: null });
  });

  it('a completed attempt is never a failed start, even with its marker unseen', () => {
    const timing: JobTiming = { job: 0, worker: 0, arrivalNs: 10n, takenNs: 10n, admittedNs: 2_000_010n, startedNs: null, endNs: 9_000_000n, poolWaitMs: 0, admissionWaitMs: 2, startLatencyMs: null, startFailed: true };
    expect(attemptSchedule(timing, 0n, true).startFailed).toBe(false);
    expect(attemptSchedule(timing, 0n, false)).toEqual({ arrivalOffsetMs: 0.00001, poolWaitMs: 0, admissionWaitMs: 2, startLatencyMs: null, startFailed: true });
  });
});

/** One cell run's records: `valid` ok attempts of `total`, the first `startFailures` failed starts, the cell's wall. */
function cellRun(cap: string, block: number, total: number, valid: number, startFailures: number, wallMs: number, startMs: (i: number) => number): TrialRecord[] {
  const cell = `staged-c64-s16b20p0-burst64-cap${cap}`;
  return Array.from({ length: total }, (_, i) => {
    const failedStart = i < startFailures;
    const ok = !failedStart && i < startFailures + valid;
    return {
      run_id: 'r', schema_version: 1, experiment: 'rollout', arm: { backend: 'staged', variant: null }, block, position: i, trial_id: `b${block}-${cell}-a${i}`, warmup: false, seed: 1,
      outcome: ok ? 'ok' : 'failed', failure_category: ok ? null : failedStart ? 'setup_failed' : 'task_failed', exit_code: null, t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: null,
      metrics: {
        admission_wait_ms: cap === 'none' ? 0 : i * 10, pool_wait_ms: 0.1, arrival_offset_ms: 0,
        ...(failedStart ? {} : { start_latency_ms: startMs(i) }),
        cell_wall_ms: wallMs, cell_starts_in_flight_peak: cap === 'none' ? total : Number(cap), cell_starts_in_flight_mean: 3,
      },
      validity: {}, notes: [],
      facts: { cell, cell_run: `${block}:${cell}`, arm_label: 'staged', concurrency: 64, model_slots: 16, model_base_ms: 20, model_per_token_ms: 0, arrival: 'burst(64)', admission_cap: cap === 'none' ? 'none' : Number(cap), start_failed: failedStart, load_average_1m: [1, 2] },
    } as unknown as TrialRecord;
  });
}

describe('arrival figures', () => {
  // cap 8: 60 and 62 valid of 64 in 30 s / 31 s; cap none: 50 and 54 valid in 40 s / 42 s, 6 and 4 failed starts
  const records = [
    ...cellRun('8', 0, 64, 60, 0, 30_000, (i) => 100 + i),
    ...cellRun('8', 1, 64, 62, 0, 31_000, (i) => 100 + i),
    ...cellRun('none', 0, 64, 50, 6, 40_000, (i) => 200 + 10 * i),
    ...cellRun('none', 1, 64, 54, 4, 42_000, (i) => 200 + 10 * i),
  ];
  const cells = summarizeArrivalCells(records);
  const cap8 = cells.find((c) => c.cap === '8')!;
  const none = cells.find((c) => c.cap === 'none')!;

  it('valid samples/s: each cell run one value, a t interval over runs; start failures with Wilson; P99 only from 100 starts', () => {
    const rates = [60 / 30, 62 / 31];
    expect(cap8.validPerS).toBeCloseTo(2, 12);
    // two runs, identical rates: a zero-width but honest interval
    expect(cap8.validPerSCi).toEqual({ low: 2, high: 2 });
    expect(rates[0]).toBe(rates[1]);
    const noneRates = [50 / 40, 54 / 42];
    const m = (noneRates[0]! + noneRates[1]!) / 2;
    expect(none.validPerS).toBeCloseTo(m, 12);
    // t(0.975, 1) = 12.706: half-width 12.706 × sd/√2
    const half = 12.706204736 * (Math.abs(noneRates[0]! - noneRates[1]!) / Math.SQRT2 / Math.SQRT2);
    expect(none.validPerSCi!.low).toBeCloseTo(m - half, 6);
    expect(none.startFailures).toBe(10);
    expect(none.attempts).toBe(128);
    expect(none.startFailureRate).toBeCloseTo(10 / 128, 12);
    expect(none.startFailureCi).toEqual(wilsonInterval(10, 128));
    expect(none.startFailureCategories).toBe('setup_failed=10');
    expect(none.startN).toBe(118);
    expect(none.startP99.value).not.toBeNull();
    expect(none.startP99.ci!.high).toBeNull(); // no order statistic reaches a P99's upper bound from 118 values
    expect(none.startP95.ci!.low).not.toBeNull();
    expect(cap8.admissionWaitP50).toBeCloseTo(315, 6);
    expect(cap8.startsPeak).toBe(8);
    const single = summarizeArrivalCells(cellRun('8', 0, 64, 60, 0, 30_000, (i) => 100 + i))[0]!;
    expect(single.validPerSCi).toBeNull();
    expect(single.startP99.value).toBeNull(); // 64 starts: no P99
  });

  it('the best cap with the paired ratio interval: slower than best only when the interval excludes 1', () => {
    const comparisons = compareCaps(cells);
    expect(comparisons.find((k) => k.cell === cap8)!.conclusion).toBe('best');
    const other = comparisons.find((k) => k.cell === none)!;
    expect(other.bestCap).toBe('8');
    const ratios = [2 / (50 / 40), 2 / (54 / 42)];
    expect(other.ratio).toBeCloseTo(Math.sqrt(ratios[0]! * ratios[1]!), 10);
    expect(other.ci!.low).toBeGreaterThan(1);
    expect(other.conclusion).toBe('slower than best');
    // two blocks that disagree: the interval spans 1, the best cap is not established
    const noisy = pairedRatio(new Map([[0, 2], [1, 1]]), new Map([[0, 1], [1, 1.5]]))!;
    expect(noisy.ci!.low).toBeLessThan(1);
    expect(pairedRatio(new Map([[0, 2]]), new Map([[0, 1]]))!.ci).toBeNull();
  });

  it('the extension writes its files, evidence and the panel only for records with a schedule; cells of two caps are two groups', () => {
    const input = { resolved: { run_id: 'r', spec: parseSpec(doc({})) }, records } as unknown as AnalysisInput;
    const out = arrivalExtension(input)!;
    expect([...out.files.keys()]).toEqual([ROLLOUT_ARRIVAL_FILE, ROLLOUT_CAPS_FILE]);
    expect(out.files.get(ROLLOUT_ARRIVAL_FILE)!.split('\n')[0]).toMatch(/^cell,arm,backend,concurrency,.*start_failure_rate,.*start_p99_ms,/);
    expect(out.charts![0]!.points.map((p) => p.x)).toEqual([8, 64]);
    expect(out.evidence.some((e) => e.metric === 'start_failure_rate' && e.statistic === 'ci95_high')).toBe(true);
    expect(out.evidence.every((e) => !e.condition.includes('warm-up'))).toBe(true);
    // A run with warm-up blocks says so in its arrival evidence too, as in the kind's other rows.
    const warmed = arrivalExtension({ ...input, resolved: { run_id: 'r', spec: parseSpec(doc({ warmup_blocks: 1 })) } } as unknown as AnalysisInput)!;
    expect(warmed.evidence.every((e) => e.condition.includes('; 1 warm-up block (excluded)'))).toBe(true);
    const old = records.map((r) => ({ ...r, metrics: { cell_wall_ms: 1 } }));
    expect(arrivalExtension({ ...input, records: old })).toBeNull();
    const analysis = withArrivalFigures(rolloutKindAnalysis);
    expect(analysis.files).toContain(ROLLOUT_CAPS_FILE);
    const labels = new Set(records.map((r) => analysis.groupOf!(r).label));
    expect(labels.size).toBe(2);
    expect([...labels][0]).toMatch(/burst\(64\) cap 8$/);
  });
});

describe('a real burst under a cap', () => {
  it('host, burst(4), cap 1: one start at a time, each later attempt waits for the previous start, every start stamped', async () => {
    const dir = tempDir('sandbench-rollout-arrival-');
    const specPath = join(dir, 'burst.yaml');
    writeFileSync(specPath, "name: burst-cap\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 3\ntimeout: 120s\nrollout:\n  attempts: 4\n  concurrency: [4]\n  arrival: ['burst(4)']\n  admission_cap: [1]\n  model: [{ slots: 4, base_ms: 5 }]\n  scoring_backend: host\n");
    const out = join(dir, 'bundle');
    const result = await runSpec({ specPath, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    expect(result.records).toHaveLength(4);
    for (const r of result.records) {
      expect(r.outcome, r.notes.join('; ')).toBe('ok');
      expect(r.facts).toMatchObject({ arrival: 'burst(4)', admission_cap: 1, start_failed: false });
      expect(r.metrics.start_latency_ms).toBeGreaterThan(0);
      expect(r.metrics.cell_starts_in_flight_peak).toBe(1);
    }
    // the k-th admitted waited for k earlier starts: waits strictly increase, each by at least a start
    const byWait = [...result.records].sort((a, b) => a.metrics.admission_wait_ms! - b.metrics.admission_wait_ms!);
    expect(byWait[0]!.metrics.admission_wait_ms).toBeLessThan(50);
    for (let k = 1; k < 4; k++) expect(byWait[k]!.metrics.admission_wait_ms! - byWait[k - 1]!.metrics.admission_wait_ms!).toBeGreaterThanOrEqual(byWait[k - 1]!.metrics.start_latency_ms! * 0.9);
    const row = parseCsv('rollout-arrival.csv', readFileSync(join(out, 'rollout-arrival.csv'), 'utf8')).rows[0]!;
    expect(row).toMatchObject({ arrival: 'burst(4)', admission_cap: '1', attempts: '4', valid: '4', start_failures: '0', starts_in_flight_peak: '1', start_n: '4' });
  }, 120_000);
});
