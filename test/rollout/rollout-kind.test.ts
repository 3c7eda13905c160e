/**
 * The rollout kind end to end on real backends (the built-in task set, the built-in agent, the real
 * model service in its own process, real budgets): the bottleneck attribution validated both ways,
 * fault injection (a sandbox killed from outside, model-service errors, a budget OOM) as retained
 * failed samples with their category, and the reward delta of a faulty substrate variant.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { createRolloutExperiment } from '../../experiments/rollout/rollout-kind.ts';
import { loadTaskSet } from '../../experiments/rollout/tasks/index.ts';
import type { RolloutTask, TaskSet } from '../../experiments/rollout/task-contract.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { runScratchDir, stateDir } from '../../harness/state-dir.ts';
import { parseCsv } from '../../harness/bundle/csv.ts';

const dir = mkdtempSync(join(tmpdir(), 'sandbench-rollout-kind-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeSpec(name: string, arms: string, rollout: string, timeout = '120s'): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `name: ${name}\nexperiment: rollout\narms: ${arms}\nwarmups: 0\ntrials: 1\nseed: 11\ntimeout: ${timeout}\nresamples: 2000\nrollout:\n${rollout}`);
  return path;
}

async function run(specPath: string, deps: Parameters<typeof createRolloutExperiment>[0] = {}) {
  const base = await runWiring();
  const kind = createRolloutExperiment(deps);
  const out = join(dir, `bundle-${Math.random().toString(36).slice(2)}`);
  const result = await runSpec({ specPath, overrides: {}, out, requireAll: true, log: () => undefined, wiring: { ...base, kindFor: (name) => (name === 'rollout' ? kind : base.kindFor(name)) } });
  const summary = parseCsv('rollout-summary.csv', readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).rows;
  return { out, records: result.records, summary, runId: JSON.parse(readFileSync(join(out, 'resolved-spec.json'), 'utf8')).run_id as string };
}

/** Nothing of the run is left: no scratch, no budget cgroup, no process naming the run. */
function expectNothingLeft(runId: string): void {
  expect(existsSync(runScratchDir(stateDir(), runId))).toBe(false);
  const cgroupRoots = ['/sys/fs/cgroup/memory', '/sys/fs/cgroup'].filter(existsSync);
  for (const root of cgroupRoots) expect(readdirSync(root).filter((name) => name.includes(runId))).toEqual([]);
  const procs = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(runId);
    } catch {
      return false;
    }
  });
  expect(procs).toEqual([]);
}

const num = (value: string | undefined) => Number(value);

describe('rollout kind', () => {
  it('a slow model at 1 slot: steady throughput within 10% of the ceiling (slots ÷ service time), model-bound; every attempt scored', async () => {
    const spec = writeSpec('rollout-model-bound', '[{ backend: host }]', '  attempts: 12\n  concurrency: [6]\n  model: [{ slots: 1, base_ms: 1000 }]\n  scoring_backend: host\n  wrong_fraction: 0.25\n');
    const { summary, records, out, runId } = await run(spec);
    expect(records).toHaveLength(12);
    const row = summary[0]!;
    expect(row.completed).toBe('12');
    expect(row.bottleneck, JSON.stringify(row)).toBe('model-bound');
    const steady = num(row.steady_throughput_rps);
    const ceiling = num(row.ceiling_rps);
    expect(Math.abs(steady - ceiling) / ceiling, `steady ${steady} vs ceiling ${ceiling}`).toBeLessThan(0.1);
    expect(num(row.throughput_ci95_low)).toBeLessThanOrEqual(num(row.throughput_rps));
    // Phases sum to the wall for every attempt.
    for (const r of records) {
      const m = r.metrics;
      expect(m.prepare_ms! + m.ready_ms! + m.model_ms! + m.tool_ms! + m.evaluation_ms! + m.drop_ms!).toBeCloseTo(m.wall_ms!, 3);
      expect(r.facts.workspace_commit).toMatch(/^[0-9a-f]{40}$/);
      expect(r.facts.evaluator_version).toBeTruthy();
      expect(r.facts.image_digest).toMatch(/^sha256:/);
    }
    // Score records and the retained candidates (content-addressed) are in the bundle.
    const scores = parseCsv('rollout-scores.csv', readFileSync(join(out, 'rollout-scores.csv'), 'utf8'));
    expect(scores.header.slice(0, 5)).toEqual(['task_id', 'attempt_id', 'reward', 'evaluator_version', 'bundle']);
    expect(scores.rows.map((s) => s.reward).sort()).toContain('1');
    const manifest = readFileSync(join(out, 'rollout-candidates.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const line of manifest) for (const file of line.files) expect(existsSync(join(out, 'candidates', 'objects', file.sha256))).toBe(true);
    expect(existsSync(join(out, 'model-journal.jsonl'))).toBe(true);
    expectNothingLeft(runId);
  }, 240_000);

  it('faults: a sandbox killed from outside, model-service errors and a budget OOM are retained failed samples with their category and no reward', async () => {
    const builtin = await loadTaskSet('builtin', { cacheDir: join(stateDir(), 'rollout-tasks') });
    const base = builtin.tasks.find((t) => t.id === 'clamp-bounds')!;
    const script = join(dir, 'faults.yaml');
    writeFileSync(
      script,
      [
        'schema: sandbench-model-script/1',
        'id: rollout-faults',
        'tasks:',
        '  - id: fault-upstream',
        '    turns:',
        '      - shell: cat numutil/clamp.py',
        '      - fail: 503',
        '        message: injected by the rollout fault test',
        '  - id: fault-oom',
        '    turns:',
        '      - shell: python3 -c "b = bytearray(400 << 20); print(len(b))"',
        '      - text: done',
        '  - id: fault-kill',
        '    turns:',
        '      - shell: sleep 30',
        '      - text: done',
        '',
      ].join('\n'),
    );
    const variant = (id: string): RolloutTask => ({ ...base, id, scriptPath: script, prompt: base.prompt, scriptTaskId: () => id, evaluator: base.evaluator, source: base.source, repoDir: base.repoDir, baseCommit: base.baseCommit });
    const taskSet: TaskSet = { id: 'faults', tasks: [variant('fault-upstream'), variant('fault-oom'), variant('fault-kill'), base] };
    const spec = writeSpec('rollout-faults', '[{ backend: host }]', '  attempts: 4\n  concurrency: [1]\n  model: [{ slots: 1, base_ms: 0 }]\n  scoring_backend: host\n  wrong_fraction: 0\n  budget_memory: 128MiB\n');
    const { records, summary, runId } = await run(spec, {
      loadTasks: async () => taskSet,
      onLaunched: (attempt, running) => {
        if (attempt.task.id !== 'fault-kill') return;
        // The sandbox (its whole process group) killed from outside, not through the harness, while the agent is inside its tool call.
        setTimeout(() => running.rootPids().forEach((pid) => process.kill(-pid, 'SIGKILL')), 2_000);
      },
    });
    const byTask = new Map(records.map((r: TrialRecord) => [String(r.facts.task_id), r]));
    expect(records).toHaveLength(4);
    expect(byTask.get('fault-upstream')).toMatchObject({ outcome: 'failed', failure_category: 'upstream_failed' });
    expect(byTask.get('fault-oom')).toMatchObject({ outcome: 'failed', failure_category: 'oom' });
    expect(byTask.get('fault-kill')).toMatchObject({ outcome: 'failed', failure_category: 'killed_externally' });
    expect(byTask.get('clamp-bounds')).toMatchObject({ outcome: 'ok', failure_category: null });
    for (const id of ['fault-upstream', 'fault-oom', 'fault-kill']) {
      expect(byTask.get(id)!.metrics.reward, id).toBeUndefined();
      expect(byTask.get(id)!.facts.reward, id).toBeNull();
    }
    const row = summary[0]!;
    expect([row.planned, row.completed, row.failed]).toEqual(['4', '1', '3']);
    expect(row.failures).toBe('killed_externally=1;oom=1;upstream_failed=1');
    expectNothingLeft(runId);
  }, 240_000);

  it('reward delta: a substrate that loses the last write shows a delta whose CI excludes 0; two honest backends differ by a CI that includes 0; a fast model is substrate-bound on every backend', async () => {
    const spec = writeSpec(
      'rollout-delta',
      '[{ backend: host }, { backend: staged }, { backend: host, variant: builtin+drop-last-write }]',
      '  attempts: 8\n  concurrency: [2]\n  model: [{ slots: 4, base_ms: 0 }]\n  scoring_backend: host\n  wrong_fraction: 0.25\n',
    );
    const { out, summary, runId, records } = await run(spec);
    // Every attempt's memory is its own cgroup's kernel peak, read at its end (never polled), with its method.
    for (const record of records.filter((r) => r.outcome === 'ok')) {
      expect(record.facts.memory_method, record.trial_id).toBe('cgroup-peak');
      expect(record.metrics.memory_peak_bytes, record.trial_id).toBeGreaterThan(1024 * 1024);
    }
    for (const row of summary) expect([row.memory_method, Number(row.memory_n) > 0], row.cell).toEqual(['cgroup-peak', true]);
    const deltas = parseCsv('rollout-reward-deltas.csv', readFileSync(join(out, 'rollout-reward-deltas.csv'), 'utf8')).rows;
    const honest = deltas.find((d) => d.candidate === 'staged')!;
    const faulty = deltas.find((d) => d.candidate === 'host:builtin+drop-last-write')!;
    expect(honest.control).toBe('host');
    expect(num(honest.ci95_low)).toBeLessThanOrEqual(0);
    expect(num(honest.ci95_high)).toBeGreaterThanOrEqual(0);
    expect(honest.excludes_zero).toBe('false');
    expect(num(faulty.reward_delta)).toBeLessThan(0);
    expect(faulty.excludes_zero).toBe('true');
    for (const row of summary) {
      expect(row.bottleneck, row.cell).toBe('substrate-bound');
      expect(num(row.utilization), row.cell).toBeLessThan(0.5);
    }
    expectNothingLeft(runId);
  }, 300_000);
});

