/**
 * Issue 35 (6): the README is a front door — at most 300 lines, the two commands first and exactly
 * as they have always been, and its example specs run: the three-line spec plans, and the "bring
 * your own tasks" rollout spec runs on a SWE-bench-format JSONL outside the repository (the shipped
 * fixture instances, their repositories cloned next to it as repos/<owner>__<name>).
 */
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSpecText } from '../../harness/spec/load-spec.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { readJournal } from '../../harness/journal/journal.ts';
import { EXPERIMENTS, SPEC_KINDS } from '../../experiments/registry.ts';
import { ensureFixtureRepos } from '../../experiments/rollout/tasks/swe-fixture.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const yamlBlocks = [...README.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe('README.md', () => {
  it('is at most 300 lines and leads with the two commands, unchanged', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
    const first = README.indexOf('./scripts/setup.sh && npx sandbench run experiments/specs/quick.yaml');
    const second = README.indexOf('./scripts/setup.sh && npm test');
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    // Before any other section's content: within the first 30 lines.
    expect(README.slice(0, second).split('\n').length).toBeLessThanOrEqual(30);
  });

  it('its three-line spec loads with the defaults and plans', () => {
    const minimal = yamlBlocks.find((block) => block.includes('experiment: shell-ready'))!;
    const spec = parseSpecText('README first-look', minimal, SPEC_KINDS);
    expect(spec).toMatchObject({ warmups: 3, trials: 30, timeout: 60_000, arms: [{ backend: 'host' }, { backend: 'staged' }] });
    expect(EXPERIMENTS['shell-ready']!.plan(spec).trials).toHaveLength(66);
  });

  it('its "bring your own tasks" spec runs on a JSONL beside it, outside the repository, from another directory', async () => {
    const block = yamlBlocks.find((b) => b.includes('experiment: rollout'))!;
    const dir = tempDir('sandbench-readme-tasks-');
    copyFileSync(join(PROJECT_ROOT, 'data', 'rollout-tasks', 'swe-fixture.jsonl'), join(dir, 'instances.jsonl'));
    mkdirSync(join(dir, 'repos'));
    const fixtures = await ensureFixtureRepos(join(dir, 'fixture-cache'));
    for (const [repo, path] of Object.entries(fixtures.repos)) symlinkSync(path, join(dir, 'repos', repo.replace('/', '__')));
    expect(block).toContain('tasks: ./instances.jsonl');
    // The spec as printed, beside its task file; run from an unrelated directory, so the path must resolve against the spec.
    const specFile = join(dir, 'my-tasks.yaml');
    writeFileSync(specFile, block);
    const bundle = join(dir, 'bundle');
    // One of the spec's two concurrency cells keeps the suite's time down; everything else is the README's.
    const run = await sandbench(['run', specFile, '--concurrency', '4', '--out', bundle], { cwd: tempDir('sandbench-readme-cwd-') });
    expect(run.code, run.stderr).toBe(0);
    const { records } = readJournal(join(bundle, 'journal.jsonl'));
    expect(records).toHaveLength(16);
    const instances = readFileSync(join(dir, 'instances.jsonl'), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { instance_id: string }).instance_id);
    // Every attempt names its task (in the record's rollout facts): each one is an instance of the JSONL.
    const taskIds = [...readFileSync(join(bundle, 'journal.jsonl'), 'utf8').matchAll(/"task_id":"([^"]+)"/g)].map((m) => m[1]!);
    expect(taskIds).toHaveLength(16);
    for (const id of taskIds) expect(instances).toContain(id);
    expect(records.every((r) => r.outcome === 'ok')).toBe(true);
  }, 540_000);
});
