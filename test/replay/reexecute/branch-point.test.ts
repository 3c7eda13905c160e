/**
 * Mode branch-point (issue 19, item 4) on the real host backend: the three ways (prefix replay, a
 * fork of a file checkpoint taken once, the prefix from scratch with the built-in agent against the
 * scripted model) reach one workspace digest, the ground truth's; the host digest is the checkpoint
 * state program's own; a workspace off by one byte does not match; branch-point.csv keeps failures
 * in its denominators; bad specs are errors naming the field.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunContext } from '../../../harness/contracts/executor.ts';
import type { ExperimentContext } from '../../../harness/contracts/experiment-kind.ts';
import type { TrialRecord } from '../../../harness/journal/trial-record.ts';
import { CleanupRegistry } from '../../../harness/run/cleanup-registry.ts';
import type { AnalysisInput } from '../../../harness/analyze/kind-analysis.ts';
import { createHostExecutor } from '../../../executors/host.ts';
import { STATE_SCRIPT } from '../../../experiments/checkpoint/state-program.ts';
import { parseSpec } from '../../../experiments/registry.ts';
import { replayExperiment } from '../../../experiments/replay/replay-kind.ts';
import { BRANCH_POINT_FILE, BRANCH_POINT_HEADER, branchPointAnalysis } from '../../../experiments/replay/reexecute/branch-point/branch-point-analysis.ts';
import { filesOf, stateDigest } from '../../../experiments/replay/reexecute/branch-point/state-digest.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-branch-point-'));
const spec = (replay: Record<string, unknown> = {}) =>
  parseSpec({ name: 'bp-test', experiment: 'replay', arms: [{ backend: 'host' }], warmups: 0, trials: 1, seed: 20261006, timeout: '60s', controls: {}, replay: { mode: 'branch-point', task: 'builtin-fix', agents: ['codex'], trajectories: 1, repetitions: 1, subjects: ['sandbench'], ...replay } });
const runId = `bptest${process.pid}`;
const executor = createHostExecutor();
const ctx = {
  run: { runId, cleanup: new CleanupRegistry(runId), log: () => undefined, stateDir: root, options: {} } as unknown as RunContext,
  spec: spec(),
  bundleDir: join(root, 'bundle'),
  executorFor: () => executor,
} as unknown as ExperimentContext;

beforeAll(async () => {
  mkdirSync(ctx.bundleDir, { recursive: true });
  await executor.prepare(ctx.run);
  await replayExperiment.prepare(ctx);
});
afterAll(async () => {
  await replayExperiment.teardown(ctx);
  await ctx.run.cleanup.releaseAll();
  rmSync(root, { recursive: true, force: true });
});

describe('branch-point on the host backend', () => {
  it('replay, fork and from-scratch reach the ground truth\'s digest, each timed', async () => {
    const plan = replayExperiment.plan(ctx.spec);
    expect(plan.trials.map((t) => t.arm.variant).sort()).toEqual(['fork', 'replay', 'scratch']);
    const records: TrialRecord[] = [];
    for (const planned of plan.trials) records.push(await replayExperiment.runTrial(planned, ctx));
    for (const r of records) {
      expect(r.outcome, `${r.trial_id}: ${r.notes.join(' | ')}`).toBe('ok');
      expect(r.validity.branch_point_state_matches).toBe('pass');
      expect(r.metrics.branch_point_ms).toBeGreaterThan(0);
      expect(r.facts.mode).toBe('branch-point');
    }
    expect(new Set(records.map((r) => r.facts.state_digest)).size).toBe(1);
    const byWay = new Map(records.map((r) => [r.facts.way, r]));
    expect(byWay.get('fork')!.facts.preserves).toBe('files');
    expect(byWay.get('fork')!.facts.checkpoint_ms).toBeGreaterThan(0);
    // from scratch: the agent sent the 3 prefix calls' requests and the branch-point request
    expect(byWay.get('scratch')!.facts.scratch_turns_answered).toEqual([0, 1, 2, 3]);
    expect(byWay.get('replay')!.facts.fidelity_differs_expected).toBe(1);
  });
});

describe('the branch-point digest', () => {
  it('is the checkpoint state program\'s tree digest, and one changed byte changes it', () => {
    const dir = join(root, 'digest');
    mkdirSync(join(dir, 'pkg'), { recursive: true });
    writeFileSync(join(dir, 'pkg', 'a.py'), 'x = 1\n');
    writeFileSync(join(dir, 'README.md'), '# r\n');
    const named = ['README.md', 'pkg/a.py', 'pkg/missing.py'];
    const python = execFileSync('python3', ['-c', `import importlib.util,sys,json; s=importlib.util.spec_from_file_location('s', sys.argv[1]); m=importlib.util.module_from_spec(s); s.loader.exec_module(m); print(m.tree_digest(sys.argv[2], json.loads(sys.argv[3]))[0])`, STATE_SCRIPT, dir, JSON.stringify(named)], { encoding: 'utf8' }).trim();
    expect(stateDigest(filesOf(dir), named)).toBe(python);
    writeFileSync(join(dir, 'pkg', 'a.py'), 'x = 2\n');
    expect(stateDigest(filesOf(dir), named)).not.toBe(python);
  });
});

describe('branch-point.csv', () => {
  it('one row per backend x way; failed and invalid trials stay in planned, only ok ones are timed', () => {
    const rec = (k: number, way: string, over: Partial<TrialRecord> = {}) =>
      ({ trial_id: `t${way}${k}`, arm: { backend: 'host', variant: way }, outcome: 'ok', failure_category: null, metrics: { branch_point_ms: 100 + k }, validity: { branch_point_state_matches: 'pass' }, notes: [], facts: { way, trajectory_index: k % 2, ...(way === 'fork' ? { preserves: 'files', checkpoint_ms: 50 + (k % 2) } : {}) }, ...over }) as unknown as TrialRecord;
    const records = [
      ...Array.from({ length: 6 }, (_, k) => rec(k, 'replay')),
      ...Array.from({ length: 6 }, (_, k) => rec(k, 'fork')),
      rec(6, 'fork', { outcome: 'invalid', failure_category: 'task_failed', validity: { branch_point_state_matches: 'fail' } }),
      rec(7, 'fork', { outcome: 'failed', failure_category: 'upstream_failed', validity: {}, metrics: {} }),
      rec(0, 'scratch'),
    ];
    const input = { resolved: { spec: spec(), run_id: 'r1' } } as unknown as AnalysisInput;
    const out = branchPointAnalysis(input, records, 'scope');
    const rows = parse<Record<string, string>>(out.files.get(BRANCH_POINT_FILE)!, { header: true, skipEmptyLines: true });
    expect(rows.meta.fields).toEqual([...BRANCH_POINT_HEADER]);
    expect(rows.data.map((r) => r.way)).toEqual(['replay', 'fork', 'scratch']);
    const fork = rows.data[1]!;
    expect([fork.planned, fork.ok, fork.failed, fork.invalid, fork.n, fork.state_judged, fork.state_matches]).toEqual(['8', '6', '1', '1', '6', '7', '6']);
    expect(fork.failure_categories).toBe('task_failed:1 upstream_failed:1');
    expect([fork.p50_ms, fork.checkpoint_ms_p50, fork.preserves]).toEqual(['102.5', '50.5', 'files']);
    expect(fork.ci95_low_ms).not.toBe('');
    expect(rows.data[2]!.ci95_low_ms).toBe('');
    expect(out.evidence!.filter((e) => e.topic === 'branch_point_cost' && e.metric === 'branch_point_ms').map((e) => e.variant)).toEqual(['host:replay', 'host:fork', 'host:scratch']);
  });
});

describe('branch-point specs', () => {
  it('a second format or the effects task is refused, naming the field', () => {
    expect(() => replayExperiment.plan(spec({ agents: ['codex', 'swe-agent'] }))).toThrow(/replay\.agents: mode branch-point takes one trajectory format/);
    expect(() => replayExperiment.plan(spec({ task: 'effects' }))).toThrow(/replay\.task: mode branch-point needs task: builtin-fix/);
  });
});
