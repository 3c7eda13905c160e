/**
 * The CI soak (issue 36): the same checker as `npm run soak -- --hours 1`, for about four minutes
 * (plus the step in flight at the end) on the `ci` campaign (rollout, density, checkpoint, killed-and-resumed, each on fewer arms), sampled
 * every 5 s. It runs alone (serial): its series count machine-wide resources, and a neighbouring test
 * file holding 40 containers would be noise it has to out-wait. Fails on any resource that grows
 * without bound, on a step that fails (a resume that does not verify included), and on too few
 * judged samples to tell.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../harness/bundle/csv.ts';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { RESOURCES } from '../../scripts/soak/resources.ts';
import { MIN_SAMPLES } from '../../scripts/soak/verdict.ts';
import { tempDir } from '../support/temp-dirs.ts';

const SOAK = join(PROJECT_ROOT, 'scripts', 'soak', 'soak.ts');

describe('CI soak: nothing the campaign starts accumulates over ~4 minutes', () => {
  it('loops the ci campaign, samples every resource, and judges every bounded one bounded', async () => {
    const out = tempDir('soak-ci');
    const result = await execa('node', ['--expose-gc', '--import', 'tsx', SOAK, '--hours', '0.07', '--sample-seconds', '5', '--campaign', 'ci', '--out', out], {
      cwd: PROJECT_ROOT,
      reject: false,
      all: true,
    });
    const report = (result.all ?? '').split('\n').filter((line) => !line.startsWith('[')).slice(-60).join('\n');
    expect(result.exitCode, report).toBe(0);

    const steps = parseCsv('steps.csv', readFileSync(join(out, 'steps.csv'), 'utf8')).rows;
    expect(new Set(steps.map((s) => s.step))).toEqual(new Set(['rollout', 'density', 'checkpoint', 'killed-resumed']));
    expect(steps.filter((s) => s.error)).toEqual([]);

    const series = parseCsv('series.csv', readFileSync(join(out, 'series.csv'), 'utf8')).rows;
    expect(series.filter((s) => s.warmup === 'false').length).toBeGreaterThanOrEqual(MIN_SAMPLES);
    const verdicts = parseCsv('verdicts.csv', readFileSync(join(out, 'verdicts.csv'), 'utf8')).rows;
    expect(verdicts.map((v) => v.resource)).toEqual(RESOURCES.map((r) => r.id));
    expect(verdicts.filter((v) => v.verdict === 'GROWS' || v.verdict === 'too few samples')).toEqual([]);
  }, 480_000);
});
