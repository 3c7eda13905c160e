/**
 * The fleet flow on one machine through the real CLI: one spec (host + staged, 1 warmup block,
 * 6 blocks) run as 3 shard processes, each with its own --out and its own state dir (sharing only
 * the built task image), merged, verified, and analysed. The merged analysis must equal analysing
 * the same trials as one run (same host), and merge must refuse a shard of another plan.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import { planDigest, type Plan } from '../../harness/plan/plan.ts';
import { stateDir } from '../../harness/state-dir.ts';
import type { ShardedPlan } from '../../harness/fleet/shard-plan.ts';
import { sandbench } from '../support/cli.ts';

const SPEC = 'test/fleet/fleet-small.yaml';
const SHARDS = 3;
const ANALYSIS = ['samples.csv', 'summary.csv', 'comparisons.csv', 'evidence.csv', 'diagnostics.csv', 'comparisons-detail.csv'];

const read = (path: string) => readFileSync(path, 'utf8');
const json = <T>(path: string) => JSON.parse(read(path)) as T;

/** A state dir of its own whose image cache is the shared one (building the image per shard costs minutes). */
function ownStateDir(root: string, index: number): string {
  const dir = join(root, `state-${index}`);
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(stateDir(), 'images'), join(dir, 'images'));
  return dir;
}

describe('fleet simulation: 3 shards of one plan on this machine → merge', () => {
  let root = '';
  const shardDir = (i: number) => join(root, `shard-${i}`);
  let merged = '';
  let fullPlanText = '';

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sandbench-fleet-'));
    const planned = await sandbench(['plan', SPEC, '--json', join(root, 'full-plan.json')]);
    expect(planned.code, planned.stderr).toBe(0);
    fullPlanText = read(join(root, 'full-plan.json'));
    // One process per shard, one after the other: the machine is shared, and each is a separate run anyway.
    for (let i = 0; i < SHARDS; i++) {
      const result = await sandbench(['run', SPEC, '--shard', `${i}/${SHARDS}`, '--out', shardDir(i)], { env: { SANDBENCH_HOME: ownStateDir(root, i) } });
      expect(result.code, result.stdout + result.stderr).toBe(0);
    }
    merged = join(root, 'merged');
    const result = await sandbench(['merge', shardDir(2), shardDir(0), shardDir(1), '--out', merged]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/merged 3 shards, 14 trials on 1 host\(s\)/);
  }, 600_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('each shard is a normal bundle recording its shard, the full plan digest and its host', async () => {
    const parent = planDigest(JSON.parse(fullPlanText) as Plan);
    for (let i = 0; i < SHARDS; i++) {
      expect((await sandbench(['verify', shardDir(i)])).code).toBe(0);
      const plan = json<ShardedPlan>(join(shardDir(i), 'plan.json'));
      expect(plan.shard.index).toBe(i);
      expect(plan.shard.count).toBe(SHARDS);
      expect(plan.shard.parent_plan_digest).toBe(parent);
      expect(plan.shard.host.hostname.length).toBeGreaterThan(0);
      const journal = readJournal(join(shardDir(i), 'journal.jsonl')).records;
      expect(journal.map((r) => r.trial_id).sort()).toEqual(plan.trials.map((t) => t.trial_id).sort());
    }
  });

  it('shards hold disjoint, whole blocks (warmup block included), block b on shard b mod 3', () => {
    const owner = new Map<string, number>();
    for (let i = 0; i < SHARDS; i++) {
      const plan = json<ShardedPlan>(join(shardDir(i), 'plan.json'));
      const arms = new Map<string, string[]>();
      for (const t of plan.trials) {
        const key = `${t.warmup ? 'w' : 'b'}${t.block}`;
        expect(owner.get(key) ?? i, key).toBe(i);
        owner.set(key, i);
        expect(t.block % SHARDS).toBe(i);
        arms.set(key, [...(arms.get(key) ?? []), t.arm.backend]);
      }
      for (const list of arms.values()) expect(list.sort()).toEqual(['host', 'staged']);
    }
    expect(owner.size).toBe(7);
  });

  it('the merged bundle verifies and covers every planned trial exactly once', async () => {
    expect((await sandbench(['verify', merged])).code).toBe(0);
    expect(read(join(merged, 'plan.json'))).toBe(fullPlanText);
    const ids = readJournal(join(merged, 'journal.jsonl')).records.map((r) => r.trial_id);
    expect(ids.length).toBe(new Set(ids).size);
    expect([...ids].sort()).toEqual((JSON.parse(fullPlanText) as Plan).trials.map((t) => t.trial_id).sort());
    const fleet = json<{ shard_count: number; hosts: { shards: number[] }[] }>(join(merged, 'fleet.json'));
    expect(fleet.shard_count).toBe(3);
    expect(fleet.hosts).toHaveLength(1);
    expect(fleet.hosts[0]!.shards).toEqual([0, 1, 2]);
    expect(existsSync(join(merged, 'report.html'))).toBe(true);
  });

  it('its analysis equals analysing the same trials as one run (one host)', async () => {
    const oneRun = join(root, 'one-run');
    mkdirSync(oneRun);
    copyFileSync(join(merged, 'resolved-spec.json'), join(oneRun, 'resolved-spec.json'));
    // The shards' own journal lines in schedule order, as one run would have journaled them: no host
    // stamp, no merge code involved.
    const lines = [0, 1, 2].flatMap((i) => read(join(shardDir(i), 'journal.jsonl')).split('\n').filter(Boolean));
    lines.sort((a, b) => (JSON.parse(a) as { position: number }).position - (JSON.parse(b) as { position: number }).position);
    writeFileSync(join(oneRun, 'journal.jsonl'), lines.map((line) => `${line}\n`).join(''));
    const analyzed = await sandbench(['analyze', oneRun]);
    expect(analyzed.code, analyzed.stderr).toBe(0);
    for (const file of ANALYSIS) expect(read(join(merged, file)), file).toBe(read(join(oneRun, file)));
  });

  it('per-host files: the one host reproduces summary.csv and comparisons.csv', () => {
    const summary = read(join(merged, 'summary.csv')).trim().split('\n');
    const perHost = read(join(merged, 'per-host-summary.csv')).trim().split('\n');
    expect(perHost.slice(1).map((line) => line.slice(line.indexOf(',') + 1))).toEqual(summary.slice(1));
    const comparison = read(join(merged, 'comparisons.csv')).trim().split('\n')[1]!.split(',');
    const fleet = read(join(merged, 'fleet-comparisons.csv')).trim().split('\n').slice(1);
    expect(fleet).toHaveLength(2);
    const within = fleet.find((line) => line.startsWith('host,'))!.split(',');
    // difference, CI low, CI high and n agree with the ordinary paired comparison
    expect([within[8], within[9], within[10], within[7]]).toEqual([comparison[8], comparison[9], comparison[10], comparison[7]]);
    const combined = fleet.find((line) => line.startsWith('combined,'))!.split(',');
    expect(combined[8]).toBe(comparison[8]);
  });

  it('merging the same shards again gives the same bytes', async () => {
    const again = join(root, 'merged-again');
    expect((await sandbench(['merge', shardDir(0), shardDir(1), shardDir(2), '--out', again])).code).toBe(0);
    for (const file of [...ANALYSIS, 'journal.jsonl', 'plan.json', 'fleet.json', 'per-host-summary.csv', 'fleet-comparisons.csv', 'fleet-report.md']) expect(read(join(again, file)), file).toBe(read(join(merged, file)));
  });

  it('refuses a shard of a different plan (exit 3, naming the mismatch) and a missing shard', async () => {
    const other = join(root, 'other-shard-0');
    const ran = await sandbench(['run', SPEC, '--seed', '5', '--arms', 'host', '--trials', '3', '--warmups', '0', '--shard', `0/${SHARDS}`, '--out', other], { env: { SANDBENCH_HOME: ownStateDir(root, 9) } });
    expect(ran.code, ran.stderr).toBe(0);
    const refused = await sandbench(['merge', other, shardDir(1), shardDir(2), '--out', join(root, 'refused')]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('parent plan digest differs');
    expect(refused.stderr).toContain(other);
    expect(refused.stderr).toMatch(/resolved-spec.json differs in .*overrides/);
    expect(existsSync(join(root, 'refused'))).toBe(false);
    const missing = await sandbench(['merge', shardDir(0), shardDir(2), '--out', join(root, 'refused-2')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('missing shard(s) 1/3');
  }, 300_000);

  it('refuses a shard bundle changed after it was written (exit 3)', async () => {
    const tampered = join(root, 'tampered');
    mkdirSync(tampered);
    for (const file of ['spec.yaml', 'resolved-spec.json', 'plan.json', 'journal.jsonl', 'manifest.json']) copyFileSync(join(shardDir(1), file), join(tampered, file));
    const result = await sandbench(['merge', shardDir(0), tampered, shardDir(2), '--out', join(root, 'refused-3')]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/tampered: fails verify \(.*missing/);
  });
});
