/** Real repair trials on host and staged: the fix lands where each backend says writes go. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repairExperiment } from '../../experiments/repair/repair-kind.ts';
import { BUGGY_LINE, FIXED_FILE, writeRepairBaseline } from '../../experiments/repair/repair-fixture.ts';
import { makeDensityContext, type DensityTestContext } from '../density/density-context.ts';

let t: DensityTestContext;
beforeAll(async () => {
  t = await makeDensityContext({ experiment: 'repair', arms: [{ backend: 'host' }, { backend: 'staged' }], warmups: 0, trials: 2, controls: { cpus: '0,1', swap: 0 } });
  await repairExperiment.prepare(t.ctx);
}, 120_000);
afterAll(async () => {
  await repairExperiment.teardown(t.ctx);
  await t?.dispose();
});

describe('repair kind', () => {
  it('plans 2 interleaved trials per arm and every one is valid', async () => {
    const plan = repairExperiment.plan(t.ctx.spec);
    expect(plan.trials).toHaveLength(4);
    for (const planned of plan.trials) {
      const record = await repairExperiment.runTrial(planned, t.ctx);
      expect(record.notes, JSON.stringify(record)).toEqual([]);
      expect(record.outcome).toBe('ok');
      expect(record.validity.correctness_passed).toBe('pass');
      expect(record.metrics.completion_ms).toBeGreaterThan(record.metrics.ready_ms!);
      expect(record.metrics.prepare_ms).toBeGreaterThan(0);
      if (planned.arm.backend === 'staged') {
        expect(record.validity).toMatchObject({ fix_in_candidate_files: 'pass', host_baseline_still_buggy: 'pass', host_original_unchanged: 'pass' });
        expect(record.facts.candidate_files).toEqual([FIXED_FILE]);
      } else {
        expect(record.validity.fix_in_host_copy).toBe('pass');
      }
      expect(record.facts.baseline_commit).toMatch(/^[0-9a-f]{40}$/);
    }
  }, 240_000);

  it('the fixture commit is deterministic and carries the bug', async () => {
    const dirs = [mkdtempSync(join(tmpdir(), 'sandbench-fixture-a-')), mkdtempSync(join(tmpdir(), 'sandbench-fixture-b-'))];
    try {
      const [a, b] = [await writeRepairBaseline(dirs[0]!, 1761955200), await writeRepairBaseline(dirs[1]!, 1761955200)];
      expect(a).toMatch(/^[0-9a-f]{40}$/);
      expect(b).toBe(a);
      expect(readFileSync(join(dirs[0]!, FIXED_FILE), 'utf8')).toContain(BUGGY_LINE);
      const config = readFileSync(join(dirs[0]!, '.git', 'config'), 'utf8');
      for (const line of ['checkStat = minimal', 'trustctime = false', 'auto = 0', 'hooksPath = /dev/null']) expect(config).toContain(line);
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
