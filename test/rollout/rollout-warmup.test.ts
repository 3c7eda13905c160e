/**
 * `rollout.warmup_blocks` on a real run: the warm-up cell runs first and is recorded (warmup: true),
 * and no figure counts it. The formal cell is then not its process's first, so its harness CPU
 * carries no V8 warm-up and its evidence says how the run was warmed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';
import { runSpec } from '../../harness/run/run-spec.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-rollout-warmup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const csvRows = (bundle: string, file: string) => parseCsv(file, readFileSync(join(bundle, file), 'utf8')).rows;

describe('rollout warm-up blocks', () => {
  it('run the cell once first, recorded as warm-up, and stay out of every figure', async () => {
    const specPath = join(dir, 'warm.yaml');
    writeFileSync(specPath, 'name: warm\nexperiment: rollout\narms: [{ backend: host }]\nseed: 3\ntimeout: 120s\nresamples: 200\nrollout:\n  attempts: 2\n  warmup_blocks: 1\n  concurrency: [2]\n  model: [{ slots: 2, base_ms: 5 }]\n  scoring_backend: host\n  retain: none\n');
    const out = join(dir, 'bundle');
    const result = await runSpec({ specPath, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    const warm = result.records.filter((r) => r.warmup);
    const formal = result.records.filter((r) => !r.warmup);
    expect(warm.map((r) => r.trial_id)).toEqual(['w0000-host-c2-s2b5p0-a0000', 'w0000-host-c2-s2b5p0-a0001']);
    expect(formal).toHaveLength(2);
    expect(result.records.every((r) => r.outcome === 'ok')).toBe(true);
    // The warm-up cell ran first in this process; the formal cell came after it.
    expect(Number(formal[0]!.metrics.cell_process_index)).toBeGreaterThan(Number(warm[0]!.metrics.cell_process_index));
    expect(formal[0]!.facts.cell_run).not.toBe(warm[0]!.facts.cell_run);

    const [summary, ...others] = csvRows(out, 'rollout-summary.csv');
    expect(others).toHaveLength(0);
    expect(summary!.planned).toBe('2');
    expect(summary!.completed).toBe('2');
    expect(csvRows(out, 'rollout-scores.csv').map((r) => r.attempt_id).sort()).toEqual(formal.map((r) => String(r.facts.attempt_id)).sort());
    const harness = csvRows(out, 'evidence.csv').find((r) => r.metric === 'harness_cpu_ms_per_rollout')!;
    expect(harness.n).toBe('2');
    expect(harness.condition).toMatch(/1 warm-up block \(excluded\)/);
    expect(harness.limitations).not.toMatch(/warm-up/);
  }, 180_000);
});
