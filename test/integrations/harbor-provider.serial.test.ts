/**
 * sandbench as a Harbor environment provider, end to end: Harbor 0.25.0 itself (`harbor run`, its
 * oracle agent, its verifier) on the fixture task set with sandbench_harbor.SandbenchEnvironment on
 * the staged backend, offline (HARBOR_TELEMETRY=0). The venv is built on first use by
 * scripts/build-harbor-venv.sh (PyPI only; ~350 MB, 25–90 s here). Also checks that the
 * result.json a rollout writes for a Harbor attempt validates as Harbor's own TrialResult.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { harborTrialResult } from '../../experiments/rollout/harbor-result.ts';
import { harborTrials, harborVenv, HARBOR_OFFLINE_ENV } from '../support/harbor-run.ts';
import { tempDir } from '../support/temp-dirs.ts';

const root = tempDir('sandbench-harbor-provider-');
const TASKS = join(PROJECT_ROOT, 'test', 'fixtures', 'harbor-tasks');
let venv = '';

beforeAll(async () => {
  venv = await harborVenv();
}, 660_000);

describe('harbor run -e sandbench_harbor:SandbenchEnvironment', () => {
  it("gives Harbor's oracle reward 1.0 on the solvable fixtures and 0 on the broken solution, journalling every operation", async () => {
    const jobs = join(root, 'jobs');
    const run = await execa(join(venv, 'bin', 'harbor'), ['run', '-p', TASKS, '-a', 'oracle', '-e', 'sandbench_harbor:SandbenchEnvironment', '--ek', 'backend=staged', '-y', '-o', jobs, '-n', '3'], {
      env: HARBOR_OFFLINE_ENV,
      reject: false,
      timeout: 300_000,
    });
    expect(run.exitCode, String(run.stdout).slice(-1500)).toBe(0);
    const trials = harborTrials(jobs);
    expect(trials.map((t) => [t.task, t.reward, t.exception])).toEqual([
      ['sandbench/broken-solution', 0, null],
      ['sandbench/count-words', 1, null],
      ['sandbench/write-greeting', 1, null],
    ]);
    for (const trial of trials) {
      const ops = trial.journal.map((entry) => entry.op);
      expect(ops[0], trial.task).toBe('start');
      expect(trial.journal[0]!.prepare_steps, trial.task).toEqual([]); // the fixtures' Dockerfiles have no prepare step
      expect(ops.at(-1), trial.task).toBe('teardown');
      expect(ops.filter((op) => op === 'exec').length).toBeGreaterThanOrEqual(2);
      expect(trial.journal.every((entry) => entry.op === 'teardown' || (entry.pss_kib ?? 0) > 0)).toBe(true);
      // Cross-check: the test.sh exec sandbench timed lies inside Harbor's verifier phase (Harbor's clock has ms resolution).
      const testExec = trial.journal.find((entry) => entry.op === 'exec' && entry.command?.includes('/tests/test.sh') && !entry.command.startsWith('chmod'));
      expect(testExec, trial.task).toBeDefined();
      const verifier = trial.phases.verifier!;
      expect(testExec!.ms).toBeLessThanOrEqual(verifier.endMs - verifier.startMs + 2);
    }
  }, 420_000);

  it("writes rollout result.json files that validate as Harbor's TrialResult", async () => {
    const record = {
      run_id: 'r', schema_version: 1, experiment: 'rollout', arm: { backend: 'staged', variant: 'oracle' }, block: 0, position: 0, trial_id: 't1', warmup: false, seed: 1,
      outcome: 'failed', failure_category: 'timeout', exit_code: null, t_spawn_ns: null, ready_ms: 1, result_ms: null, completion_ms: 10, validity: {}, notes: ['scoring sandbox: timed out'],
      metrics: { wall_ms: 10, prepare_ms: 1, ready_ms: 1, model_ms: 1, tool_ms: 1, evaluation_ms: 5, drop_ms: 1, attempt_start_offset_ms: 0 },
      facts: { task_id: 'count-words', evaluator_version: 'harbor-verifier/1+x', grade: { harbor_rewards: { reward: 1 } } },
    } as unknown as TrialRecord;
    const file = join(root, 'result.json');
    writeFileSync(file, JSON.stringify(harborTrialResult(record, { taskDir: join(TASKS, 'count-words'), taskName: 'count-words', agentName: 'oracle', backend: 'staged', cellStartEpochMs: Date.now(), resultDir: root })));
    const check = await execa(join(venv, 'bin', 'python'), ['-c', 'import sys; from harbor.models.trial.result import TrialResult; r = TrialResult.model_validate_json(open(sys.argv[1]).read()); print(r.verifier_result.rewards["reward"], r.failure_cause)', file], { reject: false });
    expect(check.stderr).toBe('');
    expect(check.stdout.trim()).toMatch(/^1 /);
  }, 60_000);
});
