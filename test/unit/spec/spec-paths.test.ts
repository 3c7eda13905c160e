/**
 * Every relative path in a spec resolves against the spec file, whatever the working directory;
 * a path that names nothing there but a shipped file (a kind's default) is the shipped file.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPEC_KINDS } from '../../../experiments/registry.ts';
import { resolveGivenSpec } from '../../../harness/spec/given-spec.ts';
import { readSection } from '../../../harness/spec/kind-spec.ts';
import { PROJECT_ROOT } from '../../../harness/state-dir.ts';
import { agentSpecSection } from '../../../experiments/agent/agent-spec.ts';
import { rolloutSection } from '../../../experiments/rollout/rollout-spec.ts';
import { runCodeSection } from '../../../experiments/run-code/run-code-spec.ts';
import { tempDir } from '../../support/temp-dirs.ts';

function specIn(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('spec paths', () => {
  const dir = tempDir('sandbench-spec-paths-');
  mkdirSync(join(dir, 'tasks'));
  writeFileSync(join(dir, 'tasks', 'instances.jsonl'), '');
  mkdirSync(join(dir, 'ws'));
  writeFileSync(join(dir, 'stream.jsonl'), '');

  it('rollout.tasks and task.workspace resolve against the spec file, not the cwd or the package', () => {
    const file = specIn(dir, 'rollout.yaml', 'name: r\nexperiment: rollout\narms: [host]\ntask: { workspace: ./ws }\nrollout: { tasks: ./tasks/instances.jsonl }\n');
    const { spec } = resolveGivenSpec(file, {}, SPEC_KINDS);
    expect(readSection(spec, rolloutSection).tasks).toBe(join(dir, 'tasks', 'instances.jsonl'));
    expect(spec.task.workspace).toBe(join(dir, 'ws'));
  });

  it('a Harbor task directory resolves against the spec file', () => {
    mkdirSync(join(dir, 'harbor'));
    const file = specIn(dir, 'harbor.yaml', 'name: h\nexperiment: rollout\narms: [host]\nrollout: { tasks: { source: harbor, path: ./harbor } }\n');
    expect(readSection(resolveGivenSpec(file, {}, SPEC_KINDS).spec, rolloutSection).tasks).toBe(`harbor:${join(dir, 'harbor')}`);
  });

  it('a task set name is not a path', () => {
    const file = specIn(dir, 'builtin.yaml', 'name: b\nexperiment: rollout\narms: [host]\nrollout: { tasks: builtin }\n');
    expect(readSection(resolveGivenSpec(file, {}, SPEC_KINDS).spec, rolloutSection).tasks).toBe('builtin');
  });

  it('run_code.stream resolves against the spec file; a shipped stream resolves against the package', () => {
    const beside = specIn(dir, 'rc.yaml', 'name: rc\nexperiment: run-code\narms: [host]\nrun_code: { stream: stream.jsonl }\n');
    expect(readSection(resolveGivenSpec(beside, {}, SPEC_KINDS).spec, runCodeSection).stream).toBe(join(dir, 'stream.jsonl'));
    const shipped = specIn(dir, 'rc-shipped.yaml', 'name: rc2\nexperiment: run-code\narms: [host]\nrun_code: { stream: data/run-code/stream-verl-shaped.jsonl }\n');
    expect(readSection(resolveGivenSpec(shipped, {}, SPEC_KINDS).spec, runCodeSection).stream).toBe(join(PROJECT_ROOT, 'data', 'run-code', 'stream-verl-shaped.jsonl'));
  });

  it("the agent kind's default script is the shipped one, absolute", () => {
    const file = specIn(dir, 'agent.yaml', 'name: a\nexperiment: agent\narms: [{ backend: host, variant: codex }]\n');
    expect(readSection(resolveGivenSpec(file, {}, SPEC_KINDS).spec, agentSpecSection).script).toBe(join(PROJECT_ROOT, 'data', 'model-scripts', 'marker.yaml'));
  });

  it('a path found nowhere stays spec-relative, so the error names where it looked', () => {
    const file = specIn(dir, 'missing.yaml', 'name: m\nexperiment: rollout\narms: [host]\nrollout: { tasks: nope/instances.jsonl }\n');
    expect(readSection(resolveGivenSpec(file, {}, SPEC_KINDS).spec, rolloutSection).tasks).toBe(join(dir, 'nope', 'instances.jsonl'));
  });
});
