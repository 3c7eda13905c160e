import { describe, expect, it } from 'vitest';
import { classifyWorker, type ClassifyInput } from '../../experiments/density/worker-outcome.ts';
import { buildDensityPlan } from '../../experiments/density/density-plan.ts';
import { parseSpec } from '../../experiments/registry.ts';

const line = (text: string) => ({ stream: 'stdout' as const, text, tNs: 1n });
const ready = line('PVISOR_DENSITY_READY {"bytes":33554432,"checksum":"c","token":"t"}');
const result = line('PVISOR_DENSITY_RESULT {"bytes":33554432,"changes":4,"checksum":"c","integrity":"passed","token":"t"}');
const exit = (exitCode: number | null, signal: string | null = null) => ({ exitCode, signal, timedOut: false, tExitNs: 2n });
const input = (over: Partial<ClassifyInput>): ClassifyInput => ({
  index: 0, token: 't', payloadBytes: 33554432, lines: [ready, result], exit: exit(0), launchError: null, released: true, readyMs: 5, budgetOomKills: 0, killedByHarness: false, ...over,
});

describe('density worker outcome', () => {
  it('valid only with one READY, one RESULT, integrity passed, 4 changes and an unchanged checksum', () => {
    expect(classifyWorker(input({})).state).toBe('valid');
    expect(classifyWorker(input({ lines: [ready, result, result] })).reason).toBe('marker_count');
    expect(classifyWorker(input({ lines: [ready, line(result.text.replace('"changes":4', '"changes":3'))] })).reason).toBe('changes_count');
    expect(classifyWorker(input({ lines: [ready, line(result.text.replace('"checksum":"c"', '"checksum":"d"'))] })).reason).toBe('checksum_mismatch');
    expect(classifyWorker(input({ lines: [ready, line(result.text.replace('passed', 'failed'))] })).reason).toBe('integrity_failed');
    expect(classifyWorker(input({ exit: exit(1) })).reason).toBe('nonzero_exit');
  });
  it('a SIGKILL the harness did not send in a budget with OOM kills is an OOM, before or after release', () => {
    expect(classifyWorker(input({ exit: exit(null, 'SIGKILL'), budgetOomKills: 1 })).reason).toBe('oom_after_release');
    expect(classifyWorker(input({ exit: exit(137), budgetOomKills: 2, released: false, lines: [] })).reason).toBe('oom_before_ready');
    expect(classifyWorker(input({ exit: exit(null, 'SIGKILL'), budgetOomKills: 1, released: false, killedByHarness: true, lines: [] })).reason).toBe('not_ready_at_barrier');
    expect(classifyWorker(input({ exit: exit(null, 'SIGKILL'), budgetOomKills: 0 })).reason).toBe('nonzero_exit');
  });
});

describe('density plan', () => {
  it('plans every cell once per block, shuffled by seed, no warmups', () => {
    const spec = parseSpec({ name: 'd', experiment: 'density', arms: [{ backend: 'host' }, { backend: 'staged' }], warmups: 0, trials: 1, seed: 3, timeout: '60s', density: { concurrency: [2, 4], batches: 3 } });
    const plan = buildDensityPlan(spec);
    expect(plan.trials).toHaveLength(12);
    expect(plan.trials.every((t) => !t.warmup)).toBe(true);
    for (let block = 0; block < 3; block++) expect(new Set(plan.trials.filter((t) => t.block === block).map((t) => t.trial_id.slice(6))).size).toBe(4);
    expect(buildDensityPlan(spec)).toEqual(plan);
    expect(buildDensityPlan({ ...spec, seed: 4 }).trials.map((t) => t.trial_id)).not.toEqual(plan.trials.map((t) => t.trial_id));
  });
});
