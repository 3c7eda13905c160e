/**
 * Acceptance on real runs (host backend, `sandbench run` as a child process): the gate on two runs
 * of the same spec exits 0 or 2, never 1; on a candidate whose task sleeps an extra 20% of the
 * baseline median it exits 1. A sleep-dominated task (1 s) keeps the shared machine's CPU load,
 * which moves launch overhead by tens of milliseconds between runs, from deciding the outcome.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { samplesOf } from '../../harness/analyze/index.ts';
import { analyzedBundle } from '../../cli/kinds.ts';
import { median } from '../../harness/stats/index.ts';
import { runCli } from './run-cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'sandbench-gate-real-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function spec(name: string, sleepSeconds: number): string {
  const path = join(work, `${name}.yaml`);
  writeFileSync(
    path,
    [
      `name: ${name}`,
      'experiment: command',
      'arms:',
      '  - backend: host',
      'warmups: 1',
      'trials: 12',
      'seed: 5',
      'timeout: 30s',
      'controls:',
      '  cpus: "0,1"',
      'task:',
      `  argv: ["/bin/sh", "-c", "sleep ${sleepSeconds.toFixed(4)}"]`,
      '',
    ].join('\n'),
  );
  return path;
}

async function run(specPath: string, out: string): Promise<string> {
  await execa('node', [join(ROOT, 'bin/sandbench.mjs'), 'run', specPath, '--out', out], { cwd: ROOT, timeout: 300_000 });
  return out;
}

describe('gate on real runs of the host backend', () => {
  it('same spec twice → 0 or 2; task sleeping an extra 20% of the baseline median → 1', async () => {
    const baseline = await run(spec('gate-sleep', 1), join(work, 'baseline'));
    const again = await run(spec('gate-sleep', 1), join(work, 'again'));
    const same = await runCli(['gate', baseline, again, '--metric', 'completion_ms']);
    expect([0, 2], same.stdout).toContain(same.code);

    const baselineMedianMs = median(samplesOf((await analyzedBundle(baseline)).analysis, 'completion_ms', 'host').map((s) => s.value));
    const slower = await run(spec('gate-sleep', 1 + (0.2 * baselineMedianMs) / 1000), join(work, 'slower'));
    const regression = await runCli(['gate', baseline, slower, '--metric', 'completion_ms']);
    expect(regression.code, regression.stdout).toBe(1);
  }, 600_000);
});
