/**
 * Per-run values are per-run, rewards are paired proportions (issue 30, parts 2 and 3), on a pair
 * of rollout-like bundles: each cell's attempts carry one copy of the cell's budget peak
 * (cell_budget_peak_bytes, as rollout-record.ts writes it) and a 0/1 reward per attempt.
 * - compare and gate give the per-cell value no interval and no verdict, only both values side by
 *   side with "n = 1 per run, no interval" (comparison.csv, the printed table, --json), while the
 *   per-attempt wall time keeps its interval;
 * - the reward of two runs with one seed is the paired difference in success rate over the matched
 *   attempts, with Newcombe's interval and McNemar's exact p; a known 2×2 table checks the numbers;
 * - the bundle's own comparisons (spec compare) follow the same rules.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dirs.ts';
import { DEFAULT_ENVIRONMENT } from './synthetic-bundle.ts';
import { runCli } from './run-cli.ts';
import { analyzedBundle } from '../../cli/kinds.ts';
import { CompareJsonSchema } from '../../reports/json/index.ts';
import { gateBundles } from '../../reports/gate/gate.ts';
import { comparisonRow, COMPARISONS_HEADER } from '../../harness/analyze/index.ts';
import { newcombePairedInterval } from '../../harness/stats/index.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';

const ATTEMPTS = 8;
const ARMS = ['podman', 'staged'] as const;
const CELL_TAIL = '-c2-s1b0p0';
/** The rollout kind's group label of a cell (experiments/rollout/rollout-analysis.ts cellGroupLabel): arm, C and the model capacity. */
const cellOf = (arm: string) => `${arm} C=2 model 1×0ms`;

interface Side {
  runId: string;
  seed: number;
  /** The cell's budget peak (one value per cell run). */
  peak: Record<(typeof ARMS)[number], number>;
  /** Reward of attempt k (0/1) per arm. */
  rewards: Record<(typeof ARMS)[number], number[]>;
  compare?: { candidate: string; control: string; metric: string }[];
}

const root = tempDir('sandbench-compare-replication-');

/** A rollout bundle as the rollout kind records one: one block, one cell per arm, the cell's figures copied onto each attempt. */
function rolloutBundle(side: Side): string {
  const dir = join(root, side.runId);
  mkdirSync(dir, { recursive: true });
  const spec = {
    name: 'rollout-pair', experiment: 'rollout', arms: ARMS.map((backend) => ({ backend })), warmups: 0, trials: 1, seed: side.seed, timeout: 60_000,
    controls: { cpus: '0,1', swap: 0 }, image: { suite: 'bookworm', packages: ['python3', 'git', 'busybox', 'ca-certificates'], source_date_epoch: 1761955200 },
    underpowered_fraction: 0.5, resamples: 1000, ...(side.compare ? { compare: side.compare } : {}),
  };
  writeFileSync(join(dir, 'resolved-spec.json'), JSON.stringify({ run_id: side.runId, spec_path: 'rollout-pair.yaml', spec_sha256: 'sha256:0', overrides: {}, spec }));
  writeFileSync(join(dir, 'environment.json'), JSON.stringify(DEFAULT_ENVIRONMENT));
  const records: TrialRecord[] = [];
  ARMS.forEach((arm, a) => {
    for (let k = 0; k < ATTEMPTS; k++) {
      const wall = (arm === 'podman' ? 1000 : 1300) + 7 * k;
      records.push({
        run_id: side.runId, schema_version: 1, experiment: 'rollout', arm: { backend: arm, variant: null }, block: 0, position: a * ATTEMPTS + k,
        trial_id: `b0000-${arm}${CELL_TAIL}-a${String(k).padStart(4, '0')}`, warmup: false, seed: side.seed, outcome: 'ok', failure_category: null, exit_code: 0,
        t_spawn_ns: null, ready_ms: null, result_ms: null, completion_ms: wall,
        metrics: { wall_ms: wall, reward: side.rewards[arm][k]!, cell_budget_peak_bytes: side.peak[arm], cell_wall_ms: 5000 },
        validity: { scored: 'pass' }, notes: [],
        facts: { arm_label: arm, cell: `${arm}${CELL_TAIL}`, cell_run: `rc-${side.runId}-${arm}`, attempt_index: k, concurrency: 2, model_slots: 1, model_base_ms: 0, model_per_token_ms: 0, agent: 'builtin' },
      });
    }
  });
  writeFileSync(join(dir, 'plan.json'), JSON.stringify({ trials: records.map((r) => ({ trial_id: r.trial_id, block: r.block, position: r.position, warmup: false, arm: r.arm })) }));
  writeFileSync(join(dir, 'journal.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return dir;
}

// Baseline rewards vs candidate rewards of podman's attempts 0..7: one both, six control-only, one neither.
const BASE_REWARDS = [1, 1, 1, 1, 1, 1, 1, 0];
const CAND_REWARDS = [1, 0, 0, 0, 0, 0, 0, 0];
const baseline = rolloutBundle({ runId: 'base', seed: 11, peak: { podman: 48e6, staged: 40e6 }, rewards: { podman: BASE_REWARDS, staged: BASE_REWARDS } });
const candidate = rolloutBundle({ runId: 'cand', seed: 11, peak: { podman: 74.16e6, staged: 40e6 }, rewards: { podman: CAND_REWARDS, staged: BASE_REWARDS } });

type Row = Record<string, string>;
function csvRows(path: string): Row[] {
  const [header, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const columns = header!.split(',');
  // The rows tested here have no quoted commas before the columns read (arm, metric, numbers, conclusion).
  return lines.map((line) => {
    const cells = line.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'));
    return Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? '']));
  });
}

describe('compare of two rollout runs', () => {
  it('gives a per-cell value no interval and no verdict, only both values and "n = 1 per run, no interval"', async () => {
    const out = join(root, 'cmp');
    const result = await runCli(['compare', baseline, candidate, '--out', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const rows = csvRows(join(out, 'comparison.csv'));
    const peak = rows.find((r) => r.arm === cellOf('podman') && r.metric === 'cell_budget_peak_bytes')!;
    expect(peak.unit_of_replication).toBe('cell');
    expect([peak.baseline_units, peak.candidate_units]).toEqual(['1', '1']);
    expect([Number(peak.baseline_p50), Number(peak.candidate_p50)]).toEqual([48e6, 74.16e6]);
    expect(peak.conclusion).toBe('n = 1 per run, no interval');
    expect(peak.no_interval).toBe('n = 1 per run, no interval');
    for (const column of ['difference_ci95_low', 'difference_ci95_high', 'ratio', 'ratio_ci95_low', 'ratio_ci95_high', 'mann_whitney_p']) expect(peak[column], column).toBe('');
    // The per-attempt wall time is replicated: it keeps its interval (so the rule is per metric, not per kind).
    const wall = rows.find((r) => r.arm === cellOf('podman') && r.metric === 'wall_ms')!;
    expect(wall.unit_of_replication).toBe('attempt');
    expect(wall.no_interval).toBe('');
    expect(Number(wall.ratio_ci95_high)).toBeGreaterThan(Number(wall.ratio_ci95_low));
    // The printed table (stderr under --json) says it in words and draws no verdict for the value.
    const printed = result.stderr.split('\n').find((l) => l.includes(cellOf('podman')) && l.includes('cell_budget_peak_bytes'))!;
    expect(printed).toMatch(/n = 1 per run, no interval/);
    expect(printed).not.toMatch(/candidate (slower|faster|larger|smaller)|\[/);
    // --json: the explicit field, and no CI.
    const json = CompareJsonSchema.parse(JSON.parse(result.stdout));
    const jsonPeak = json.rows.find((r) => r.arm === cellOf('podman') && r.metric === 'cell_budget_peak_bytes')!;
    expect(jsonPeak.no_interval).toBe('n = 1 per run, no interval');
    expect(jsonPeak.unit_of_replication).toBe('cell');
    expect(jsonPeak.difference_ci95_low).toBeNull();
    expect(jsonPeak.ratio_ci95_high).toBeNull();
  });

  it('compares the reward of one seed as paired proportions: difference in success rate, Newcombe CI, McNemar exact p', async () => {
    const out = join(root, 'cmp-reward');
    const result = await runCli(['compare', baseline, candidate, '--out', out, '--metric', 'reward']);
    expect(result.code, result.stderr).toBe(0);
    const reward = csvRows(join(out, 'comparison.csv')).find((r) => r.arm === cellOf('podman'))!;
    // Table (candidate × baseline): both 1, candidate-only 0, baseline-only 6, neither 1.
    expect(Number(reward.pairs)).toBe(8);
    expect(Number(reward.baseline_mean)).toBe(7 / 8);
    expect(Number(reward.candidate_mean)).toBe(1 / 8);
    expect(Number(reward.difference)).toBeCloseTo(-6 / 8, 12);
    // McNemar exact: 2 · P(X ≤ 0), X ~ Binomial(6, ½) = 2/64 (statsmodels mcnemar([[1, 0], [6, 1]], exact=True) = 0.03125).
    expect(Number(reward.mcnemar_p)).toBeCloseTo(0.03125, 12);
    const ci = newcombePairedInterval({ both: 1, candidateOnly: 0, controlOnly: 6, neither: 1 })!;
    expect(Number(reward.difference_ci95_low)).toBeCloseTo(ci.low, 12);
    expect(Number(reward.difference_ci95_high)).toBeCloseTo(ci.high, 12);
    expect(ci.high).toBeLessThan(0);
    expect(reward.conclusion).toBe('candidate lower');
    expect(reward.confidence_method).toMatch(/Newcombe 1998 method 10; McNemar exact p/);
    expect(reward.ratio).toBe('');
    // Identical rewards: a CI around 0 that is not a point, and no verdict.
    const same = csvRows(join(out, 'comparison.csv')).find((r) => r.arm === cellOf('staged'))!;
    expect(Number(same.difference)).toBe(0);
    expect(Number(same.difference_ci95_low)).toBeLessThan(0);
    expect(Number(same.difference_ci95_high)).toBeGreaterThan(0);
    expect(Number(same.mcnemar_p)).toBe(1);
    expect(same.conclusion).toBe('no detected difference');
  });

  it('refuses to pair the rewards of runs with different seeds (attempt k is another task there)', async () => {
    const otherSeed = rolloutBundle({ runId: 'cand-seed', seed: 12, peak: { podman: 48e6, staged: 40e6 }, rewards: { podman: CAND_REWARDS, staged: BASE_REWARDS } });
    const out = join(root, 'cmp-seed');
    const result = await runCli(['compare', baseline, otherSeed, '--out', out, '--metric', 'reward']);
    expect(result.code, result.stderr).toBe(0);
    const reward = csvRows(join(out, 'comparison.csv')).find((r) => r.arm === cellOf('podman'))!;
    expect(reward.conclusion).toMatch(/not compared: the runs used different seeds/);
    expect(reward.difference_ci95_low).toBe('');
  });
});

describe('gate and the bundle comparisons on per-cell values and rewards', () => {
  it('gate judges no per-cell value: invalid with "n = 1 per run, no interval", and leaves it out of its default metrics', async () => {
    const [b, c] = [await analyzedBundle(baseline), await analyzedBundle(candidate)];
    const gated = gateBundles(b, c, { metrics: ['cell_budget_peak_bytes'], resamples: 200 });
    expect(gated.verdict).toBe('invalid');
    expect(gated.cells).toHaveLength(0);
    expect(gated.invalidReasons.join('\n')).toMatch(/cell_budget_peak_bytes: n = 1 per run, no interval/);
    const defaults = gateBundles(b, c, { resamples: 200 });
    expect(defaults.cells.map((cell) => cell.metric)).not.toContain('cell_budget_peak_bytes');
    expect(defaults.cells.map((cell) => cell.metric)).not.toContain('cell_wall_ms');
  });

  it("the bundle's own comparisons: no interval for the per-cell value, paired proportions for the reward", async () => {
    const dir = rolloutBundle({
      runId: 'own', seed: 11, peak: { podman: 48e6, staged: 74.16e6 }, rewards: { podman: BASE_REWARDS, staged: CAND_REWARDS },
      compare: [
        { candidate: cellOf('staged'), control: cellOf('podman'), metric: 'cell_budget_peak_bytes' },
        { candidate: cellOf('staged'), control: cellOf('podman'), metric: 'reward' },
        { candidate: cellOf('staged'), control: cellOf('podman'), metric: 'wall_ms' },
      ],
    });
    const { analysis } = await analyzedBundle(dir);
    const row = (metric: string) => {
      const o = analysis.comparisons.find((x) => x.candidate.metric === metric)!;
      return Object.fromEntries(COMPARISONS_HEADER.map((h, i) => [h, comparisonRow(analysis.context, o)[i]]));
    };
    expect(row('cell_budget_peak_bytes')).toMatchObject({ n: 1, conclusion: 'n = 1 per run, no interval', ci95_low_ms: null, ci95_high_ms: null, ratio: null });
    expect(row('reward')).toMatchObject({ n: 8, conclusion: 'candidate lower' });
    expect(row('reward').difference_ms).toBeCloseTo(-0.75, 12);
    expect(row('reward').confidence_method).toMatch(/McNemar/);
    expect(row('wall_ms').conclusion).toBe('candidate slower');
    // McNemar's p is the reward comparison's member of the run's Holm family.
    const member = analysis.family.members[analysis.comparisons.findIndex((x) => x.candidate.metric === 'reward')]!;
    expect(member.rankP).toBeCloseTo(0.03125, 12);
  });
});
