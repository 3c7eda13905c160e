/**
 * sandbench as a Harbor environment provider, end to end, on the acceptance of issue 34: Harbor 0.25.0
 * itself (`harbor run`, its oracle agent, its verifier) with sandbench_harbor.SandbenchEnvironment,
 * offline (HARBOR_TELEMETRY=0). The venv is built on first use by scripts/build-harbor-venv.sh (PyPI
 * only; ~350 MB, 25–90 s here).
 *
 * What each backend covers (one `harbor run` job per backend, 3 trials at a time):
 * - host, staged and podman: all six shipped tasks (data/harbor-tasks), oracle reward 1.0 each;
 * - staged only: the fixture broken-solution (test/fixtures/harbor-tasks), whose solve.sh is wrong:
 *   reward 0, and no exception (a wrong answer is a reward, not an infrastructure failure).
 * Every trial's journal is cross-checked against Harbor's phases, within CLOCK_TOLERANCE_MS (2 ms:
 * both sides are the host's wall clock read at ms resolution; test/support/harbor-run.ts):
 * - the `start` operation, and so every environment-prepare step in it (gcc, git clone, pip), lies
 *   inside Harbor's environment_setup;
 * - the solve.sh exec lies inside agent_execution, the test.sh exec inside verifier.
 *
 * Serial: 70–102 s here at load 6–19 (three jobs of trials that each start a Node bridge and a sandbox
 * on 2 cores; the pip task reaches PyPI on every trial), too long to share the parallel pool. Measured
 * figures are in docs/harbor.md. Also checks that the result.json a rollout writes for a Harbor attempt validates as
 * Harbor's own TrialResult.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { harborTrialResult } from '../../experiments/rollout/harbor-result.ts';
import { CLOCK_TOLERANCE_MS, harborVenv, journalWindow, overhangMs, phaseDurationsMs, runHarborOracle, type HarborTrial, type JournalEntry } from '../support/harbor-run.ts';
import { tempDir } from '../support/temp-dirs.ts';

const root = tempDir('sandbench-harbor-provider-');
const SHIPPED = join(PROJECT_ROOT, 'data', 'harbor-tasks');
const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures', 'harbor-tasks');

/** The shipped tasks, with the environment-prepare steps each Dockerfile declares (the bridge's `command` names). */
const SHIPPED_PREPARE_STEPS: Record<string, string[]> = {
  'sandbench/c-adler32': ['compile'],
  'sandbench/clone-calc': ['git-clone'],
  'sandbench/count-words': [],
  'sandbench/invoice-totals': [],
  'sandbench/pip-versions': ['pip'],
  'sandbench/write-greeting': [],
};
const BROKEN = { name: 'sandbench/broken-solution', dir: join(FIXTURES, 'broken-solution') };

const JOBS = [
  { backend: 'host', withBroken: false },
  { backend: 'staged', withBroken: true },
  { backend: 'podman', withBroken: false },
];

let venv = '';

beforeAll(async () => {
  venv = await harborVenv();
}, 660_000);

function findExec(trial: HarborTrial, script: string): JournalEntry {
  const found = trial.journal.find((entry) => entry.op === 'exec' && entry.command?.startsWith(`(${script})`));
  expect(found, `${trial.task}: no journalled exec of ${script}`).toBeDefined();
  return found!;
}

/** The journal and Harbor's phases tell one story, within the clocks' resolution. */
function expectJournalInsidePhases(trial: HarborTrial, backend: string, prepareSteps: string[]): void {
  const start = trial.journal[0]!;
  expect(start.op, trial.task).toBe('start');
  expect(trial.journal.at(-1), trial.task).toMatchObject({ op: 'teardown', failures: [] });
  expect(trial.journal.every((entry) => entry.backend === backend), trial.task).toBe(true);
  expect(trial.journal.every((entry) => entry.op === 'teardown' || (entry.pss_kib ?? 0) > 0), trial.task).toBe(true);

  // Each trial's environment prepare runs inside its own start, and the start inside environment_setup.
  expect(start.prepare_steps!.map((step) => step.command), trial.task).toEqual(prepareSteps);
  const stepsMs = start.prepare_steps!.reduce((sum, step) => sum + step.ms, 0);
  expect(stepsMs, trial.task).toBeLessThanOrEqual(start.workspace_ms!);
  expect(start.workspace_ms!, trial.task).toBeLessThanOrEqual(start.total_ms!);
  expect(overhangMs(journalWindow(start), trial.phases.environment_setup!), `${trial.task}: start outside environment_setup`).toBeLessThanOrEqual(CLOCK_TOLERANCE_MS);

  expect(overhangMs(journalWindow(findExec(trial, '/solution/solve.sh')), trial.phases.agent_execution!), `${trial.task}: solve.sh outside agent_execution`).toBeLessThanOrEqual(CLOCK_TOLERANCE_MS);
  expect(overhangMs(journalWindow(findExec(trial, '/tests/test.sh')), trial.phases.verifier!), `${trial.task}: test.sh outside verifier`).toBeLessThanOrEqual(CLOCK_TOLERANCE_MS);
}

describe('harbor run -a oracle -e sandbench_harbor:SandbenchEnvironment', () => {
  it('the expectations name every shipped task', () => {
    const shipped = readdirSync(SHIPPED).filter((name) => existsSync(join(SHIPPED, name, 'task.toml')));
    expect(shipped.map((name) => `sandbench/${name}`).sort()).toEqual(Object.keys(SHIPPED_PREPARE_STEPS));
  });

  it.each(JOBS)("gives Harbor's oracle reward 1.0 on every shipped task on $backend, the journal inside Harbor's phases", async ({ backend, withBroken }) => {
    const job = await runHarborOracle(venv, { backend, datasets: [SHIPPED], tasks: withBroken ? [BROKEN.dir] : [], jobsDir: join(root, `jobs-${backend}`), concurrency: 3 });
    expect(job.exitCode, job.outputTail).toBe(0);
    const expected = [...Object.keys(SHIPPED_PREPARE_STEPS).map((task) => [task, 1, null]), ...(withBroken ? [[BROKEN.name, 0, null]] : [])];
    expect(job.trials.map((t) => [t.task, t.reward, t.exception])).toEqual(expected.sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
    for (const trial of job.trials) expectJournalInsidePhases(trial, backend, SHIPPED_PREPARE_STEPS[trial.task] ?? []);
    // The figures docs/harbor.md reports: per trial, Harbor's phases and sandbench's start (ms).
    console.info(`${backend}: harbor run ${Math.round(job.wallMs)} ms; ${job.trials.map((t) => `${t.task} reward ${t.reward} ${JSON.stringify(phaseDurationsMs(t))} start ${Math.round(t.journal[0]!.total_ms!)}`).join('; ')}`);
  }, 420_000);

  it("writes rollout result.json files that validate as Harbor's TrialResult", async () => {
    const record = {
      run_id: 'r', schema_version: 1, experiment: 'rollout', arm: { backend: 'staged', variant: 'oracle' }, block: 0, position: 0, trial_id: 't1', warmup: false, seed: 1,
      outcome: 'failed', failure_category: 'timeout', exit_code: null, t_spawn_ns: null, ready_ms: 1, result_ms: null, completion_ms: 10, validity: {}, notes: ['scoring sandbox: timed out'],
      metrics: { wall_ms: 10, prepare_ms: 1, ready_ms: 1, model_ms: 1, tool_ms: 1, evaluation_ms: 5, drop_ms: 1, attempt_start_offset_ms: 0 },
      facts: { task_id: 'count-words', evaluator_version: 'harbor-verifier/1+x', grade: { harbor_rewards: { reward: 1 } } },
    } as unknown as TrialRecord;
    const file = join(root, 'result.json');
    writeFileSync(file, JSON.stringify(harborTrialResult(record, { taskDir: join(FIXTURES, 'count-words'), taskName: 'count-words', agentName: 'oracle', backend: 'staged', cellStartEpochMs: Date.now(), resultDir: root })));
    const check = await execa(join(venv, 'bin', 'python'), ['-c', 'import sys; from harbor.models.trial.result import TrialResult; r = TrialResult.model_validate_json(open(sys.argv[1]).read()); print(r.verifier_result.rewards["reward"], r.failure_cause)', file], { reject: false });
    expect(check.stderr).toBe('');
    expect(check.stdout.trim()).toMatch(/^1 /);
  }, 60_000);
});
