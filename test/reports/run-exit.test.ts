/**
 * `run` exits 4 when a planned arm ended with zero valid formal trials (issue 17): a real run on the
 * host backend whose task always fails; the arm and the dominant failure category are named, and
 * the bundle is still complete (its analysis says the same).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AnalysisJsonSchema, armsWithoutValidTrials } from '../../harness/analyze/index.ts';
import { analyzedBundle } from '../../cli/kinds.ts';
import { runCli } from './run-cli.ts';

const work = mkdtempSync(join(tmpdir(), 'sandbench-run-exit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('run exit code 4 and --json', () => {
  it('names the arm with 0 valid trials and its dominant category; the bundle is still written', async () => {
    const spec = join(work, 'always-fails.yaml');
    writeFileSync(spec, ['name: always-fails', 'experiment: command', 'arms:', '  - backend: host', 'warmups: 0', 'trials: 3', 'seed: 1', 'timeout: 10s', 'task:', '  argv: ["/bin/false"]', ''].join('\n'));
    const out = join(work, 'bundle');
    const result = await runCli(['run', spec, '--out', out, '--json']);
    expect(result.code, result.stderr).toBe(4);
    expect(result.stderr).toMatch(/arm host: 0 of 3 formal trials valid \(mostly task_failed\)/);
    expect(existsSync(join(out, 'manifest.json'))).toBe(true);
    // --json: one document on stdout (validated by the repo's schema); the human summary went to stderr.
    const json = AnalysisJsonSchema.parse(JSON.parse(result.stdout));
    expect(json.arms_without_valid_trials).toEqual([{ arm: 'host', planned: 3, dominant: 'task_failed' }]);
    expect(result.stderr).toContain(`bundle: ${out}`);
    expect(armsWithoutValidTrials((await analyzedBundle(out)).analysis)).toEqual([{ arm: 'host', planned: 3, dominant: 'task_failed' }]);
  }, 300_000);
});
