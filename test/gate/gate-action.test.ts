/**
 * Issue 35 (7): the GitHub Action's steps are scripts/gate-action.sh, run here end to end as the
 * workflow runs it: a real interleaved run of two arms, the gate, JUnit, the job summary and the
 * step outputs. action.yml must hand every input to the script. An inconclusive cell can be
 * written to JUnit as skipped (the exit code stays 2).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { runCli } from '../reports/run-cli.ts';
import { makeSyntheticBundle } from '../reports/synthetic-bundle.ts';
import { tempDir } from '../support/temp-dirs.ts';

const SCRIPT = join(PROJECT_ROOT, 'scripts', 'gate-action.sh');

describe('the gate action', () => {
  it('action.yml runs scripts/gate-action.sh with every input, and uploads the output directory', () => {
    const action = parseYaml(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { value: string }>;
      runs: { using: string; steps: { id?: string; run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, string> }[] };
    };
    expect(action.runs.using).toBe('composite');
    const gate = action.runs.steps.find((s) => s.id === 'gate')!;
    expect(gate.run).toContain('$GITHUB_ACTION_PATH/scripts/gate-action.sh');
    const script = readFileSync(SCRIPT, 'utf8');
    for (const input of Object.keys(action.inputs).filter((i) => i !== 'setup')) {
      const variable = `SANDBENCH_GATE_${input.toUpperCase().replace(/-/g, '_')}`;
      expect(gate.env?.[variable], input).toBe(`\${{ inputs.${input} }}`);
      expect(script, variable).toContain(variable);
    }
    expect(action.outputs.verdict!.value).toBe('${{ steps.gate.outputs.verdict }}');
    expect(action.outputs['exit-code']!.value).toBe('${{ steps.gate.outputs.exit-code }}');
    expect(action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'))?.with?.path).toBe('${{ inputs.out }}');
  });

  it('runs a gate end to end (host baseline, staged candidate: never a pass), with JUnit, summary and outputs', async () => {
    const dir = tempDir('sandbench-gate-action-');
    const spec = join(dir, 'gate.yaml');
    writeFileSync(spec, 'name: action-gate\nexperiment: shell-ready\narms: [host, staged]\nwarmups: 1\ntrials: 8\nseed: 35\ncompare:\n  - { candidate: staged, control: host, metric: ready_ms }\n');
    const out = join(dir, 'out');
    const githubOutput = join(dir, 'github-output');
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '## an earlier step\n');
    const result = await execa('bash', [SCRIPT], {
      reject: false,
      cwd: dir,
      env: { SANDBENCH_GATE_SPEC: spec, SANDBENCH_GATE_ARMS: 'host,staged', SANDBENCH_GATE_THRESHOLD: '5%', SANDBENCH_GATE_METRIC: 'ready_ms', SANDBENCH_GATE_OUT: out, GITHUB_OUTPUT: githubOutput, GITHUB_STEP_SUMMARY: summary },
    });
    // The step outputs, the exit code and gate.json agree, whatever this machine's noise made of the verdict.
    const json = JSON.parse(readFileSync(join(out, 'gate.json'), 'utf8')) as { verdict: string; exit_code: number };
    expect(result.exitCode, result.stderr).toBe(json.exit_code);
    expect(readFileSync(githubOutput, 'utf8')).toBe(`verdict=${json.verdict}\nexit-code=${json.exit_code}\n`);
    // staged's ready time is several times the host's (≈10x on the reference machine): never a pass at +5%.
    // A loaded machine can split the host's ~1 ms times into clusters, which the gate calls invalid (exit 3).
    expect(['regression', 'invalid']).toContain(json.verdict);
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).toMatch(new RegExp(`<testcase classname="sandbench\\.gate\\.staged vs host" name="ready_ms P50" time="0">\\n\\s+<(failure|error) type="${json.verdict}"`));
    const stepSummary = readFileSync(summary, 'utf8');
    expect(stepSummary.startsWith('## an earlier step\n')).toBe(true);
    expect(stepSummary).toContain(`### sandbench gate: ${json.verdict.toUpperCase()} (exit ${json.exit_code})`);
    expect(existsSync(join(out, 'bundle', 'manifest.json'))).toBe(true);
    expect(existsSync(join(out, 'gate', 'gate.csv'))).toBe(true);
  }, 300_000);

  it('refuses arms that are not two, before running anything', async () => {
    const dir = tempDir('sandbench-gate-action-arms-');
    const result = await execa('bash', [SCRIPT], { reject: false, cwd: dir, env: { SANDBENCH_GATE_SPEC: 'x.yaml', SANDBENCH_GATE_ARMS: 'host', SANDBENCH_GATE_OUT: join(dir, 'out') } });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/expected exactly two arms, <baseline-arm>,<candidate-arm>/);
  });

  it('--junit-inconclusive skipped writes an inconclusive cell as <skipped>; the exit code stays 2', async () => {
    // Equal medians, wide noise, few blocks: the ratio's CI straddles the +5% limit.
    const bundle = makeSyntheticBundle({ arms: [{ backend: 'host', medians: { completion_ms: 100 } }, { backend: 'staged', medians: { completion_ms: 100 } }], blocks: 6, seed: 35, sigma: 0.4 });
    const dir = tempDir('sandbench-gate-junit-');
    const args = ['gate', bundle, '--baseline-arm', 'host', '--candidate-arm', 'staged', '--metric', 'completion_ms', '--summary-md', join(dir, 's.md')];
    const failed = await runCli([...args, '--junit', join(dir, 'failure.xml')]);
    expect(failed.code, failed.stdout + failed.stderr).toBe(2);
    expect(readFileSync(join(dir, 'failure.xml'), 'utf8')).toMatch(/<failure type="inconclusive"/);
    const skipped = await runCli([...args, '--junit', join(dir, 'skipped.xml'), '--junit-inconclusive', 'skipped']);
    expect(skipped.code).toBe(2);
    const xml = readFileSync(join(dir, 'skipped.xml'), 'utf8');
    expect(xml).toMatch(/<skipped message="inconclusive: staged vs host completion_ms P50/);
    expect(xml).not.toContain('<failure');
    expect(xml).toContain('failures="0" errors="0" skipped="1"');
    expect((await runCli([...args, '--junit', join(dir, 'x.xml'), '--junit-inconclusive', 'maybe'])).stderr).toMatch(/--junit-inconclusive: "maybe" is not failure or skipped/);
  });
});
