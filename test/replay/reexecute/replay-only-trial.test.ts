/**
 * The replay-only trial on the real host backend (issue 19 acceptance tests): the effects prefix
 * replays with 6 identical observations and the fresh one differs-expected; a call writing beside
 * the workspace is a boundary failure; an altered recorded observation is differs-unexpected with a
 * digest, never accepted; a call whose program is missing is a categorized failure, not a crash.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExperimentContext } from '../../../harness/contracts/experiment-kind.ts';
import type { RunContext, TaskCommand, TrialContext } from '../../../harness/contracts/executor.ts';
import { plannedRecord } from '../../../harness/journal/record-base.ts';
import { CleanupRegistry } from '../../../harness/run/cleanup-registry.ts';
import { createExecutor } from '../../../executors/registry.ts';
import type { FixtureTask } from '../../../experiments/replay/fixture-task.ts';
import { GENERATORS } from '../../../experiments/replay/generate/index.ts';
import { effectsTask } from '../../../experiments/replay/reexecute/effects-task.ts';
import { buildReplayInputs } from '../../../experiments/replay/reexecute/replay-inputs.ts';
import { runReplayOnly } from '../../../experiments/replay/reexecute/replay-only-trial.ts';
import { writeBaseline, type FixtureEntry } from '../../../experiments/replay/replay-fixtures.ts';

const root = mkdtempSync(join(tmpdir(), 'sandbench-replay-only-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
async function replay(edit: (task: FixtureTask) => FixtureTask) {
  const name = `case-${counter++}`;
  const task = edit(effectsTask(0, 20261006));
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const text = GENERATORS.codex(task);
  const path = join(dir, 'task-0.jsonl');
  writeFileSync(path, text);
  const workspace = join(dir, 'baseline');
  await writeBaseline(workspace, task);
  const entry: FixtureEntry = { agent: 'codex', index: 0, path, bundlePath: 'task-0.jsonl', sha256: createHash('sha256').update(text).digest('hex'), task, workspace, workspaceDigest: '' };
  const inputs = buildReplayInputs(join(dir, 'scratch'), [entry]);
  const input = inputs.prefixes.get('codex/0')!;
  const cleanup = new CleanupRegistry(name);
  const run = { runId: name, cleanup, log: () => undefined, stateDir: dir, options: {} } as unknown as RunContext;
  const ctx = { run, spec: {}, bundleDir: dir, executorFor: () => executor } as unknown as ExperimentContext;
  const executor = createExecutor('host', null)!;
  const trialDir = join(dir, 'trial');
  mkdirSync(trialDir, { recursive: true });
  const trial: TrialContext = { run, trialId: name, baselineWorkspace: workspace, trialDir, timeoutMs: 30_000, controls: { cpus: null, memoryMiB: null }, budget: null };
  const task_: TaskCommand = { argv: ['python3', `${inputs.mount.target}/replay-driver.py`, input.callsTarget], env: {}, stdin: 'none', mounts: [inputs.mount] };
  const planned = { trial_id: name, block: 0, position: 0, warmup: false, arm: { backend: 'host', variant: 'codex' }, seed: 1 };
  try {
    return await runReplayOnly({ planned, ctx, input, task: task_, executor, trial, record: plannedRecord(name, 'replay', planned) });
  } finally {
    await executor.finishTrial(trial);
    await cleanup.releaseAll();
  }
}

const withCommand = (k: number, command: string) => (task: FixtureTask) => ({ ...task, turns: task.turns.map((t, i) => (i === k ? { ...t, command } : t)) });

describe('replay-only on the host backend', () => {
  it('replays the effects prefix: 6 identical, the fresh call differs-expected, exactly the expected effects', async () => {
    const record = await replay((t) => t);
    expect(record.outcome).toBe('ok');
    expect([record.facts.fidelity_identical, record.facts.fidelity_differs_expected, record.facts.fidelity_differs_unexpected]).toEqual([6, 1, 0]);
    expect(Object.values(record.validity).every((v) => v === 'pass')).toBe(true);
    expect(record.metrics.per_call_ms).toBeGreaterThan(0);
    expect(Object.keys(record.metrics).filter((k) => /^call_\d+_ms$/.test(k))).toHaveLength(7);
  });

  it('a call writing beside the workspace is a boundary failure', async () => {
    const record = await replay((t) => withCommand(0, `${t.turns[0]!.command.replace(' && echo', ' && printf leak > ../outside.txt && echo')}`)(t));
    expect(record.outcome).toBe('invalid');
    expect(record.failure_category).toBe('isolation_refused');
    expect(record.validity.no_effects_outside_workspace).toBe('fail');
    expect(record.facts.outside_entries).toEqual(['outside.txt']);
    expect(record.facts.replay_failure_category).toBe('boundary');
  });

  it('an observation that differs where the ground truth expects none is differs-unexpected with a digest', async () => {
    const record = await replay((t) => ({ ...t, turns: t.turns.map((turn, i) => (i === 3 ? { ...turn, observation: 'fixture-0\nstep-3\n' } : turn)) }));
    expect(record.outcome).toBe('invalid');
    expect(record.validity.no_unexpected_differences).toBe('fail');
    const calls = record.facts.calls as { verdict: string; diff_digest: string | null }[];
    expect(calls[3]!.verdict).toBe('differs-unexpected');
    expect(calls[3]!.diff_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(record.facts.fidelity_differs_unexpected).toBe(1);
  });

  it('a call whose program the sandbox lacks is a categorized failure, not a crash', async () => {
    const record = await replay(withCommand(4, 'sandbench-no-such-tool --version'));
    expect(record.outcome).toBe('failed');
    expect(record.failure_category).toBe('setup_failed');
    expect(record.facts.replay_failure_category).toBe('missing_binary');
    expect(record.facts.missing_binaries).toEqual(['sandbench-no-such-tool']);
  });
});
