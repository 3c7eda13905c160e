/**
 * Issue 35 (4): quiet, honest output — ratios to 3 significant figures on screen (CSVs keep every
 * digit), the report's warning pointer quotes its warning whole, a run with --arms says in one line
 * which declared comparisons it leaves out, and the flagship spec declares its comparisons.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/state-dir.ts';
import { fmtRatio } from '../../reports/render/format.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { runCli } from './run-cli.ts';
import { makeSyntheticBundle } from './synthetic-bundle.ts';

describe('quiet, honest output', () => {
  it('ratios print with 3 significant figures, never in exponent notation', () => {
    expect([4110.565, 3560.017, 32.888, 2.75, 0.99812, 0.5, 9.996, 0.012345, 1].map(fmtRatio)).toEqual(['4110', '3560', '32.9', '2.75', '0.998', '0.500', '10.0', '0.0123', '1.00']);
    expect(fmtRatio(null)).toBe('—');
  });

  it('the report.md warning pointer quotes the first warning whole', async () => {
    const dir = makeSyntheticBundle({ arms: [{ backend: 'host', medians: { completion_ms: 10 } }, { backend: 'staged', medians: { completion_ms: 30 } }], blocks: 8, seed: 35 });
    const cli = await runCli(['report', dir]);
    expect(cli.code, cli.stderr).toBe(0);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    const warning = 'The spec declares no compare: every other arm is compared with the first arm, host (the default control); add compare: [{candidate, control, metric}] to choose.';
    const pointer = md.split('\n').find((line) => line.startsWith('> **Read the'));
    expect(pointer).toBe(`> **Read the 1 warning(s) below the chart before these numbers. The first: ${warning}**`);
  });

  it('quick.yaml with --arms host,staged: one line for the comparisons it leaves out, and no warning about its own spec', async () => {
    const bundle = join(tempDir('sandbench-quiet-'), 'bundle');
    const run = await sandbench(['run', 'experiments/specs/quick.yaml', '--arms', 'host,staged', '--trials', '3', '--warmups', '0', '--out', bundle]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n');
    expect(lines.filter((l) => /comparison/.test(l) && /not in this run/.test(l))).toEqual([
      'sandbench: leaving out 5 declared comparison(s) whose arm is not in this run: docker vs staged (ready_ms), podman vs staged (ready_ms), pvisor vs staged (ready_ms), qemu-microvm vs staged (ready_ms), gvisor vs podman (ready_ms)',
    ]);
    expect(run.stdout + run.stderr).not.toMatch(/declares no compare/);
    expect(run.stdout).toMatch(/\d+(\.\d+)?× \[\d+(\.\d+)?, \d+(\.\d+)?\] vs host/);
    expect(run.stdout).not.toMatch(/\d{2,}\.\d{2,}×/); // 3 significant figures: 17.3×, never 17.309×
    expect(readFileSync(join(bundle, 'report.md'), 'utf8')).not.toMatch(/declares no compare/);
  }, 300_000);

  it('the specs the README runs declare their comparisons', () => {
    for (const file of ['quick.yaml', 'shell-ready.yaml', 'command.yaml']) {
      const spec = parseYaml(readFileSync(join(PROJECT_ROOT, 'experiments', 'specs', file), 'utf8')) as { compare?: unknown[] };
      expect(spec.compare?.length, file).toBeGreaterThan(0);
    }
  });
});
