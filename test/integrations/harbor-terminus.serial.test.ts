/**
 * Harbor's terminus-2 agent against `sandbench model serve`, with sandbench as Harbor's environment
 * provider on staged, offline: `harbor run -a terminus-2 -m openai/x --ak api_base=…` on the shipped
 * task c-adler32 (a gcc build at environment setup, two bugs in two files). terminus-2 runs its loop
 * on the host and types the scripted keystrokes (data/model-scripts/harbor-terminus.yaml) into a tmux
 * session inside the sandbox through the provider's exec; Harbor's own verifier gives the reward.
 *
 * Serial: the verdict rests on a real wait (terminus reads the pane `duration` seconds after typing
 * the gcc line), so it runs alone, after the parallel suite. About 35 s here at load 6.
 *
 * Also the per-trial environment prepare: the bridge journals the Dockerfile's gcc step, and its
 * time must lie inside Harbor's own environment_setup phase.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { loadModelScript, readModelJournal, scriptedTurnsProblem, startModelService, summarizeAttempts } from '../../services/model/index.ts';
import { CLOCK_TOLERANCE_MS, HARBOR_OFFLINE_ENV, harborTrials, harborVenv, journalWindow, overhangMs } from '../support/harbor-run.ts';
import { tempDir } from '../support/temp-dirs.ts';

const root = tempDir('sandbench-harbor-terminus-');
const TASK = join(PROJECT_ROOT, 'data', 'harbor-tasks', 'c-adler32');
const SCRIPT = loadModelScript(join(PROJECT_ROOT, 'data', 'model-scripts', 'harbor-terminus.yaml'));

let venv = '';
let service: Awaited<ReturnType<typeof startModelService>>;

beforeAll(async () => {
  venv = await harborVenv();
  service = await startModelService({ script: SCRIPT, socketDir: root, port: 0 });
}, 660_000);

afterAll(async () => {
  await service?.close();
});

describe('harbor run -a terminus-2 against sandbench model serve, on the sandbench provider', () => {
  it('completes the shipped C task with reward 1.0, the scripted turns answered, the gcc prepare step inside environment_setup', async () => {
    const jobs = join(root, 'jobs');
    const run = await execa(
      join(venv, 'bin', 'harbor'),
      ['run', '-p', TASK, '-a', 'terminus-2', '-m', 'openai/x', '--ak', `api_base=http://127.0.0.1:${service.port}/v1`, '--ak', 'record_terminal_session=false', '--ak', 'enable_summarize=false', '-e', 'sandbench_harbor:SandbenchEnvironment', '--ek', 'backend=staged', '-y', '-o', jobs, '-n', '1'],
      { env: { ...HARBOR_OFFLINE_ENV, OPENAI_API_KEY: 'x' }, reject: false, timeout: 300_000 },
    );
    expect(run.exitCode, String(run.stdout).slice(-1500)).toBe(0);
    const [trial, ...others] = harborTrials(jobs);
    expect(others).toEqual([]);
    expect([trial!.task, trial!.reward, trial!.exception]).toEqual(['sandbench/c-adler32', 1, null]);

    // The model side: terminus' three requests (command batch, task_complete, its confirmation), all answered.
    const traffic = summarizeAttempts(readModelJournal(service.journalPath).entries);
    expect(traffic).toHaveLength(1);
    expect(traffic[0]!.generations).toBe(3);
    expect(scriptedTurnsProblem(traffic[0]!, SCRIPT.tasks.find((task) => task.id === 'c-adler32')!)).toBeNull();
    const trajectory = JSON.parse(readFileSync(join(trial!.dir, 'agent', 'trajectory.json'), 'utf8'));
    expect(trajectory.schema_version).toMatch(/^ATIF-v/);
    expect(trajectory.agent.name).toBe('terminus-2');

    // The environment side: terminus drove tmux through exec; teardown left nothing.
    const commands = trial!.journal.filter((entry) => entry.op === 'exec').map((entry) => entry.command ?? '');
    expect(commands.some((command) => command.includes('tmux new-session'))).toBe(true);
    expect(commands.some((command) => command.startsWith('tmux send-keys') && command.includes('gcc'))).toBe(true);
    expect(trial!.journal.at(-1)).toMatchObject({ op: 'teardown', failures: [] });

    // Per-trial environment prepare: the gcc step (Dockerfile line 10), timed inside Harbor's environment_setup.
    const start = trial!.journal[0]!;
    expect(start.op).toBe('start');
    expect(start.prepare_steps).toHaveLength(1);
    const [compile] = start.prepare_steps!;
    expect(compile).toMatchObject({ dockerfile_line: 10, command: 'compile' });
    expect(compile!.ms).toBeGreaterThan(0);
    expect(compile!.ms).toBeLessThanOrEqual(start.total_ms!);
    expect(overhangMs(journalWindow(start), trial!.phases.environment_setup!)).toBeLessThanOrEqual(CLOCK_TOLERANCE_MS);
    expect(existsSync(join(trial!.dir, 'agent', 'terminus_2.pane'))).toBe(true);
  }, 360_000);
});
