/**
 * Rollout attempts' native trajectories as ATIF (experiments/rollout/harbor-atif.ts), validated by
 * Harbor 0.25.0's own pydantic model (harbor.models.trajectories.Trajectory) in the Harbor venv:
 * - a real built-in agent run (experiments/rollout/agent/agent.py on the host, in a temp workspace,
 *   against the model service on the shipped three-turns script), through writeHarborResults, as a
 *   rollout writes it beside result.json;
 * - every agent format's golden sample (data/trajectories/samples), through the same conversion.
 */
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { storeObject } from '../../experiments/rollout/candidate-store.ts';
import { atifFromHistory, ATIF_FILE } from '../../experiments/rollout/harbor-atif.ts';
import { HARBOR_TRIALS_DIR, writeHarborResults } from '../../experiments/rollout/harbor-result.ts';
import type { ReplayAgent } from '../../experiments/replay/agents.ts';
import { PARSERS } from '../../experiments/replay/parse/index.ts';
import { loadModelScript, startModelService } from '../../services/model/index.ts';
import { harborVenv } from '../support/harbor-run.ts';
import { tempDir } from '../support/temp-dirs.ts';

const root = tempDir('sandbench-harbor-atif-');
const SAMPLES = join(PROJECT_ROOT, 'data', 'trajectories', 'samples');
const AGENT = join(PROJECT_ROOT, 'experiments', 'rollout', 'agent', 'agent.py');

let venv = '';
let service: Awaited<ReturnType<typeof startModelService>>;

beforeAll(async () => {
  venv = await harborVenv();
  service = await startModelService({ script: loadModelScript(join(PROJECT_ROOT, 'data', 'model-scripts', 'three-turns.yaml')), socketDir: join(root, 'model'), port: 0 });
}, 660_000);

afterAll(async () => {
  await service?.close();
});

/** Harbor's verdict on each file: "ok <steps>" or the pydantic error. */
async function harborValidates(files: readonly string[]): Promise<string[]> {
  const program = [
    'import sys',
    'from harbor.models.trajectories import Trajectory',
    'for path in sys.argv[1:]:',
    '    try:',
    '        t = Trajectory.model_validate_json(open(path).read())',
    '        print("ok", len(t.steps))',
    '    except Exception as error:',
    '        print("invalid", path, str(error).replace("\\n", " | "))',
  ].join('\n');
  const run = await execa(join(venv, 'bin', 'python'), ['-c', program, ...files], { reject: false });
  expect(run.stderr).toBe('');
  return run.stdout.trim().split('\n');
}

function record(trialId: string, trajectory: Record<string, unknown> | null): TrialRecord {
  return {
    run_id: 'r1', schema_version: 1 as never, experiment: 'rollout', arm: { backend: 'host' }, block: 0, position: 0, trial_id: trialId, warmup: false, seed: 1,
    outcome: 'ok', failure_category: null, exit_code: 0, t_spawn_ns: null, ready_ms: 1, result_ms: null, completion_ms: 10, validity: {}, notes: [],
    metrics: { wall_ms: 10, prepare_ms: 1, ready_ms: 1, model_ms: 1, tool_ms: 1, evaluation_ms: 5, drop_ms: 1, reward: 1, attempt_start_offset_ms: 0 },
    facts: { task_id: 'write-greeting', agent_version: 'builtin', trajectory },
  } as unknown as TrialRecord;
}

describe('ATIF trajectories of rollout attempts', () => {
  it("converts a real built-in agent run, written beside result.json, and Harbor's model accepts it", async () => {
    const workspace = join(root, 'workspace');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(root, 'prompt.txt'), 'Run the scripted commands.');
    const native = join(root, 'trajectory.json');
    const agent = await execa('python3', [AGENT, '--base-url', `http://127.0.0.1:${service.port}`, '--prompt-file', join(root, 'prompt.txt'), '--trajectory', native], { cwd: workspace, reject: false, timeout: 60_000 });
    expect(agent.exitCode, agent.stderr).toBe(0);

    const bundle = join(root, 'bundle');
    const stored = storeObject(bundle, readFileSync(native));
    const trajectory = { sha256: stored.sha256, bytes: stored.bytes, format: 'mini-swe-agent', origin: 'built-in agent --trajectory', messages: 7, parsed: true };
    writeHarborResults(bundle, [record('t-ok', trajectory), record('t-unparsed', { ...trajectory, parsed: false })], new Map([['write-greeting', '/tasks/write-greeting']]), Date.now(), 'builtin');

    const trialDir = join(bundle, HARBOR_TRIALS_DIR, 't-ok');
    const result = JSON.parse(readFileSync(join(trialDir, 'result.json'), 'utf8'));
    expect(result.sandbench).toMatchObject({ atif_trajectory: ATIF_FILE, atif_note: null });
    const atif = JSON.parse(readFileSync(join(trialDir, ATIF_FILE), 'utf8'));
    expect(atif.steps.map((step: { source: string }) => step.source)).toEqual(['system', 'user', 'agent', 'agent', 'agent']);
    const [, , first] = atif.steps;
    expect(first.tool_calls).toHaveLength(1);
    expect(first.tool_calls[0].arguments).toHaveProperty('command');
    expect(first.observation.results[0].source_call_id).toBe(first.tool_calls[0].tool_call_id);
    expect(first.observation.results[0].extra.exit_code).toBe(0);
    expect(atif.steps.at(-1).tool_calls).toBeUndefined(); // the final text turn

    const unparsed = JSON.parse(readFileSync(join(bundle, HARBOR_TRIALS_DIR, 't-unparsed', 'result.json'), 'utf8'));
    expect(unparsed.sandbench).toMatchObject({ atif_trajectory: null, atif_note: 'its mini-swe-agent trajectory did not parse' });

    expect(await harborValidates([join(trialDir, ATIF_FILE)])).toEqual(['ok 5']);
  }, 120_000);

  it("converts every agent format's sample, and Harbor's model accepts each", async () => {
    const files: string[] = [];
    for (const format of readdirSync(SAMPLES).filter((name) => name in PARSERS) as ReplayAgent[]) {
      const [sample] = readdirSync(join(SAMPLES, format));
      const history = PARSERS[format](readFileSync(join(SAMPLES, format, sample!), 'utf8'));
      const file = join(root, `atif-${format}.json`);
      writeFileSync(file, JSON.stringify(atifFromHistory(history, { agentName: format, agentVersion: 'sample', origin: 'data/trajectories/samples' })));
      files.push(file);
    }
    expect(files).toHaveLength(7);
    const verdicts = await harborValidates(files);
    expect(verdicts.filter((line) => !line.startsWith('ok ')), verdicts.join('\n')).toEqual([]);
  }, 60_000);
});
