/**
 * `sandbench run rollout.yaml --concurrency 1,4`: the override replaces every concurrency list of the
 * rollout section (concurrency_by_backend included), keeps the section's parsed units, refuses
 * --batches, and resolved-spec.json of a real run records what ran.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { loadKindSpec, SPEC_KINDS } from '../../experiments/registry.ts';
import { buildRolloutPlan } from '../../experiments/rollout/rollout-plan.ts';
import { concurrencyFor, rolloutOptions } from '../../experiments/rollout/rollout-spec.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { applyOverrides } from '../../harness/spec/resolve-spec.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-rollout-overrides-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const shipped = join(PROJECT_ROOT, 'experiments', 'specs', 'rollout.yaml');

describe('rollout --concurrency', () => {
  it('replaces concurrency and every concurrency_by_backend list; durations and sizes keep their units', () => {
    const { spec } = loadKindSpec(shipped);
    const before = rolloutOptions(spec);
    expect(concurrencyFor(before, 'qemu-microvm')).toEqual([1, 2]);
    const overridden = applyOverrides(shipped, spec, { concurrency: [1, 4] }, SPEC_KINDS);
    const after = rolloutOptions(overridden);
    expect(after.concurrency).toEqual([1, 4]);
    expect(after.concurrency_by_backend).toEqual({});
    for (const backend of ['host', 'staged', 'podman', 'docker', 'qemu-microvm']) expect(concurrencyFor(after, backend)).toEqual([1, 4]);
    const unchanged = { ...before, concurrency: [1, 4], concurrency_by_backend: {} };
    expect(after).toEqual(unchanged);
    // Every cell of the plan is at C 1 or 4, on every backend.
    const cs = new Set(buildRolloutPlan(overridden).trials.map((t) => `${t.arm.backend}:${t.params!.concurrency}`));
    expect([...cs].sort()).toEqual(['docker:1', 'docker:4', 'host:1', 'host:4', 'podman:1', 'podman:4', 'qemu-microvm:1', 'qemu-microvm:4', 'staged:1', 'staged:4']);
    // Other overrides leave the section alone (no ms read back as seconds on re-validation).
    expect(rolloutOptions(applyOverrides(shipped, spec, { trials: 1 }, SPEC_KINDS))).toEqual(before);
  });

  it('refuses --batches (a cell repeats with rollout.blocks) and an invalid level, naming the field', () => {
    const { spec } = loadKindSpec(shipped);
    expect(() => applyOverrides(shipped, spec, { batches: 2 }, SPEC_KINDS)).toThrow(/--batches: the rollout kind has no batches.*rollout\.blocks/);
    expect(() => applyOverrides(shipped, spec, { concurrency: [2, 2] }, SPEC_KINDS)).toThrow(/rollout\.concurrency.*listed twice/);
    expect(() => applyOverrides(shipped, spec, { concurrency: [0] }, SPEC_KINDS)).toThrow(/rollout\.concurrency\.0/);
  });

  it('a real run records the override in resolved-spec.json and runs its cells at that C (harness CPU with the launcher counted)', async () => {
    const specPath = join(dir, 'tiny.yaml');
    writeFileSync(specPath, 'name: tiny\nexperiment: rollout\narms: [{ backend: host }]\nwarmups: 0\ntrials: 1\nseed: 3\ntimeout: 120s\nresamples: 200\nrollout:\n  attempts: 2\n  concurrency: [1]\n  concurrency_by_backend: { host: [1] }\n  model: [{ slots: 2, base_ms: 5 }]\n  scoring_backend: host\n  retain: none\n');
    const out = join(dir, 'bundle');
    const result = await runSpec({ specPath, overrides: { concurrency: [2] }, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    const resolved = JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8'));
    expect(resolved.overrides).toEqual({ concurrency: [2] });
    expect(resolved.spec.rollout.concurrency).toEqual([2]);
    expect(resolved.spec.rollout.concurrency_by_backend).toEqual({});
    expect(resolved.spec.rollout.scoring_timeout).toBe(60_000);
    expect(result.records).toHaveLength(2);
    expect(result.records.every((r) => r.outcome === 'ok' && r.facts.concurrency === 2)).toBe(true);
    const row = parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows[0]!;
    expect(row.concurrency).toBe('2');
    // The launcher's share is measured (on this machine the run has a launcher) and inside the total.
    expect(Number(row.harness_cpu_helpers_ms_per_rollout)).toBeGreaterThanOrEqual(0);
    expect(Number(row.harness_cpu_ms_per_rollout)).toBeGreaterThanOrEqual(Number(row.harness_cpu_helpers_ms_per_rollout));
    expect(result.records[0]!.metrics.cell_harness_helper_cpu_ms).toBeTypeOf('number');
    // The process's first rollout cell carries V8's warm-up: its harness figure says so; a later cell's does not.
    const harnessEvidence = (bundle: string) => parseCsv('evidence.csv', readFileSync(join(bundle, 'evidence.csv'), 'utf8')).rows.find((r) => r.metric === 'harness_cpu_ms_per_rollout')!;
    expect(result.records[0]!.metrics.cell_process_index).toBe(0);
    expect(harnessEvidence(out).limitations).toMatch(/the process's first rollout cell, which carries V8's warm-up.*rollout\.warmup_blocks: 1 runs every cell once first/);
    const again = await runSpec({ specPath, overrides: { concurrency: [2] }, out: join(dir, 'bundle-again'), requireAll: true, log: () => undefined, wiring: await runWiring() });
    expect(again.records[0]!.metrics.cell_process_index).toBe(1);
    expect(harnessEvidence(join(dir, 'bundle-again')).limitations).not.toMatch(/warm-up/);
  }, 180_000);
});
