/**
 * The replay experiment end to end on a small spec: real subjects as separate processes, real
 * audits. pvisor-replay joins when it is on PATH (pip install pvisor-sandbox). Its spec repeats with
 * replay.repetitions: the generic trials/warmups default to the neutral values and are refused otherwise.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile, rm, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TaskImage } from '../../harness/image/task-image.ts';
import { TrialRecordSchema } from '../../harness/journal/trial-record.ts';
import { CleanupRegistry } from '../../harness/run/cleanup-registry.ts';
import { type Spec } from '../../harness/spec/schema.ts';
import { loadKindSpec, parseSpec, SPEC_KINDS } from '../../experiments/registry.ts';
import { applyOverrides } from '../../harness/spec/resolve-spec.ts';
import { readJournal } from '../../harness/journal/journal.ts';
import { replaySection } from '../../experiments/replay/replay-plan.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';
import type { ExperimentContext } from '../../harness/contracts/experiment-kind.ts';
import { ensureFixtures, fixtureKey } from '../../experiments/replay/replay-fixtures.ts';
import { replayExperiment, resolveSubjects } from '../../experiments/replay/replay-kind.ts';
import { pvisorReplayStatus } from '../../experiments/replay/subjects.ts';

const pvisor = pvisorReplayStatus().available;

function smallSpec(overrides: Record<string, unknown> = {}): Spec {
  return parseSpec({
    name: 'replay-test',
    experiment: 'replay',
    arms: [{ backend: 'host' }],
    seed: 3,
    timeout: '60s',
    replay: { agents: ['codex', 'swe-agent'], trajectories: 1, repetitions: 1, subjects: ['sandbench', 'pvisor-replay'] },
    ...overrides,
  });
}

let bundleDir: string;
let ctx: ExperimentContext;

beforeAll(async () => {
  bundleDir = await mkdtemp(join(tmpdir(), 'sandbench-test-replay-bundle-'));
  const runId = `replaytest${process.pid}`;
  ctx = {
    // the replay kind never touches the task image or an executor
    run: { runId, image: undefined as unknown as TaskImage, stateDir: bundleDir, cleanup: new CleanupRegistry(runId), log: () => undefined, options: {} },
    spec: smallSpec(),
    bundleDir,
    executorFor: () => {
      throw new Error('replay uses no executor');
    },
  };
  await replayExperiment.prepare(ctx);
});

afterAll(async () => {
  await replayExperiment.teardown(ctx);
  await ctx.run.cleanup.releaseAll();
  await rm(bundleDir, { recursive: true, force: true });
});

describe('plan', () => {
  it('is subjects x agents x trajectories x repetitions, with params, no warmups', () => {
    const spec = smallSpec({ replay: { agents: ['codex', 'opencode', 'pi-agent'], trajectories: 3, repetitions: 2, subjects: ['sandbench'] } });
    const plan = replayExperiment.plan(spec);
    expect(plan.trials).toHaveLength(3 * 3 * 2);
    expect(new Set(plan.trials.map((t) => t.trial_id)).size).toBe(plan.trials.length);
    expect(plan.trials.every((t) => !t.warmup && t.arm.backend === 'sandbench' && t.params?.agent === t.arm.variant)).toBe(true);
    // each block is one (repetition, trajectory) with every arm once
    for (let block = 0; block < plan.blocks; block++) {
      const inBlock = plan.trials.filter((t) => t.block === block);
      expect(inBlock).toHaveLength(3);
      expect(new Set(inBlock.map((t) => `${t.params?.trajectory}/${t.params?.repetition}`)).size).toBe(1);
    }
    expect(replayExperiment.plan(spec)).toEqual(plan);
    expect(replayExperiment.plan({ ...spec, seed: 4 }).trials.map((t) => t.trial_id)).not.toEqual(plan.trials.map((t) => t.trial_id));
  });

  it('repeats with replay.repetitions whatever the (neutral) generic trials say', () => {
    const spec = smallSpec({ replay: { agents: ['codex'], trajectories: 2, repetitions: 3, subjects: ['sandbench'] } });
    expect(spec).toMatchObject({ trials: 1, warmups: 0 });
    expect(replayExperiment.plan(spec)).toMatchObject({ warmup_blocks: 0, blocks: 3 * 2 });
  });

  it('skips pvisor-replay with a reason when it is not installed', () => {
    const saved = process.env.SANDBENCH_PVISOR_REPLAY;
    process.env.SANDBENCH_PVISOR_REPLAY = '/nonexistent/pvisor-replay';
    try {
      const { available, skipped } = resolveSubjects(ctx.spec);
      expect(available).toEqual(['sandbench']);
      expect(skipped[0]!.reason).toMatch(/not an executable/);
      expect(replayExperiment.plan(ctx.spec).trials.every((t) => t.arm.backend === 'sandbench')).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.SANDBENCH_PVISOR_REPLAY;
      else process.env.SANDBENCH_PVISOR_REPLAY = saved;
    }
  });
});

describe('spec', () => {
  const minimal = { name: 'x', experiment: 'replay', arms: ['host'] };

  it('name, experiment and arms load, with the neutral trials and warmups the kind runs', () => {
    const spec = parseSpec(minimal);
    expect(spec).toMatchObject({ trials: 1, warmups: 0, timeout: 60_000, arms: [{ backend: 'host' }] });
    expect(replaySection(spec).repetitions).toBe(3);
  });

  it('refuses trials or warmups, naming the file, the field and replay.repetitions', () => {
    const file = join(tempDir('sandbench-replay-spec-'), 'replay.yaml');
    writeFileSync(file, 'name: x\nexperiment: replay\narms: [host]\ntrials: 3\nreplay: { repetitions: 3 }\n');
    expect(() => loadKindSpec(file)).toThrow(`${file}: trials: the replay kind does not repeat with trials (it would be ignored); set replay.repetitions instead and remove trials`);
    expect(() => parseSpec({ ...minimal, warmups: 1 }, 'w.yaml')).toThrow(/w\.yaml: warmups: the replay kind does not repeat with warmups.*set replay\.repetitions/);
    expect(() => applyOverrides('x.yaml', parseSpec(minimal), { trials: 5 }, SPEC_KINDS)).toThrow(/--trials: the replay kind does not repeat with trials.*replay\.repetitions/);
    // the neutral values, as specs written before the defaults spell them, still load
    expect(parseSpec({ ...minimal, trials: 1, warmups: 0 })).toMatchObject({ trials: 1, warmups: 0 });
  });

  it('a spec of name, experiment, arms and a small replay section runs and records its defaults', async () => {
    const dir = tempDir('sandbench-replay-minimal-');
    const specFile = join(dir, 'x.yaml');
    writeFileSync(specFile, 'name: x\nexperiment: replay\narms: [host]\nreplay: { agents: [codex], trajectories: 1, repetitions: 2, subjects: [sandbench] }\n');
    const bundle = join(dir, 'bundle');
    const result = await sandbench(['run', specFile, '--out', bundle]);
    expect(result.code, result.stderr).toBe(0);
    const resolved = JSON.parse(readFileSync(join(bundle, 'resolved-spec.json'), 'utf8'));
    expect(resolved.defaulted).toEqual(['warmups', 'trials', 'seed', 'timeout']);
    expect(resolved.spec).toMatchObject({ warmups: 0, trials: 1, timeout: 60_000, replay: { repetitions: 2, trajectories: 1 } });
    const { records } = readJournal(join(bundle, 'journal.jsonl'));
    expect(records.map((r) => r.facts.repetition).sort()).toEqual([0, 1]);
    expect(records.every((r) => !r.warmup && r.outcome === 'ok')).toBe(true);
  }, 180_000);
});

describe('trials', () => {
  it('every planned attempt is ok, audited and timed', async () => {
    const plan = replayExperiment.plan(ctx.spec);
    expect(plan.trials).toHaveLength((pvisor ? 2 : 1) * 2);
    for (const planned of plan.trials) {
      const record = TrialRecordSchema.parse(await replayExperiment.runTrial(planned, ctx));
      expect(record.notes, record.trial_id).toEqual([]);
      expect(record.outcome).toBe('ok');
      expect(Object.values(record.validity).every((v) => v === 'pass')).toBe(true);
      expect(record.validity.no_marker_files).toBe('pass');
      expect(record.metrics.completion_ms).toBeGreaterThan(0);
      expect(record.facts.trajectory_sha256).toMatch(/^[0-9a-f]{64}$/);
      // How it was timed (issue 14), and affinity goes through the launcher, not a taskset exec.
      expect((record.facts.timing as { path: string }).path).toBe(process.env.SANDBENCH_TIMING_PATH === 'node' ? 'node' : 'launcher');
      expect((record.facts.argv as string[])[0]).not.toBe('taskset');
    }
    const subjects = JSON.parse(await readFile(join(bundleDir, 'replay', 'subjects.json'), 'utf8')) as { subjects: { subject: string; available: boolean }[] };
    expect(subjects.subjects.map((s) => s.subject)).toEqual(['sandbench', 'pvisor-replay']);
  });

  it('a marker file in the workspace makes the attempt invalid', async () => {
    const planned = replayExperiment.plan(ctx.spec).trials.find((t) => t.arm.backend === 'sandbench' && t.arm.variant === 'codex')!;
    const workspace = (await ensureFixtures(ctx)).entries.get(fixtureKey('codex', 0))!.workspace;
    await writeFile(join(workspace, 'marker-0.txt'), 'fixture-0');
    try {
      const record = await replayExperiment.runTrial(planned, ctx);
      expect(record.outcome).toBe('invalid');
      expect(record.validity.no_marker_files).toBe('fail');
      expect(record.validity.workspace_unchanged).toBe('fail');
      expect(record.validity.historical_command_exact).toBe('pass');
      expect(record.notes[0]).toMatch(/audit failed: .*workspace_unchanged.*no_marker_files/);
    } finally {
      await rm(join(workspace, 'marker-0.txt'));
    }
  });

  it('a subject that refuses the trajectory is a categorized failure, not a timing', async () => {
    const planned = replayExperiment.plan(ctx.spec).trials.find((t) => t.arm.backend === 'sandbench' && t.arm.variant === 'swe-agent')!;
    const entry = (await ensureFixtures(ctx)).entries.get(fixtureKey('swe-agent', 0))!;
    const original = await readFile(entry.path);
    await writeFile(entry.path, original.subarray(0, 100));
    try {
      const record = await replayExperiment.runTrial(planned, ctx);
      expect(record.outcome).toBe('failed');
      expect(record.failure_category).toBe('task_failed');
      expect(record.facts.replay_failure_category).toBe('malformed_json');
      expect(record.exit_code).toBe(11);
    } finally {
      await writeFile(entry.path, original);
    }
  });
});
