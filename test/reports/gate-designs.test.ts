/** The gate's designs through the CLI (issue 13): interleaved A/B, several baseline runs, --calibrate, --statistic, and `sandbench power`. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSyntheticBundle, type SyntheticArm } from './synthetic-bundle.ts';
import { runCli } from './run-cli.ts';

const AB: SyntheticArm[] = [
  { backend: 'docker', variant: 'old', medians: { completion_ms: 800 } },
  { backend: 'docker', variant: 'new', medians: { completion_ms: 800 } },
];
const ONE: SyntheticArm[] = [{ backend: 'docker', medians: { completion_ms: 800 } }];

describe('sandbench gate designs', () => {
  it('interleaved A/B: two arms of one run; 20% slower candidate arm → exit 1, unchanged → exit 0 or 2, unknown arm → exit 3', async () => {
    const slow = makeSyntheticBundle({ arms: AB, blocks: 20, seed: 101, slowdown: { 'docker:new': 1.2 } });
    const r1 = await runCli(['gate', slow, '--baseline-arm', 'docker:old', '--candidate-arm', 'docker:new']);
    expect(r1.code, r1.stdout).toBe(1);
    expect(r1.stdout).toMatch(/interleaved A\/B/);
    expect(r1.stdout).toMatch(/docker:new vs docker:old\s+completion_ms\s+P50/);
    const same = makeSyntheticBundle({ arms: AB, blocks: 20, seed: 102 });
    const r0 = await runCli(['gate', same, '--baseline-arm', 'docker:old', '--candidate-arm', 'docker:new']);
    expect([0, 2], r0.stdout).toContain(r0.code);
    const bad = await runCli(['gate', same, '--baseline-arm', 'docker:old', '--candidate-arm', 'docker:nope']);
    expect(bad.code).toBe(3);
    expect(bad.stdout).toMatch(/--candidate-arm docker:nope: no such arm/);
  });

  it('several baseline runs: hierarchical bootstrap named in the method; one run per side warns that run variance is not covered', async () => {
    const baselines = [111, 112, 113].map((seed) => makeSyntheticBundle({ arms: ONE, blocks: 20, seed, runId: `base-${seed}` }));
    const candidate = makeSyntheticBundle({ arms: ONE, blocks: 20, seed: 114, runId: 'cand', slowdown: { docker: 1.5 } });
    const multi = await runCli(['gate', '--baseline', ...baselines, '--candidate', candidate]);
    expect(multi.stdout).toMatch(/hierarchical bootstrap: 3 baseline run\(s\), 1 candidate run\(s\)/);
    expect(multi.code, multi.stdout).toBe(1);
    const single = await runCli(['gate', baselines[0]!, candidate]);
    expect(single.stdout).toMatch(/between-run variance not covered/);
  });

  it('--calibrate stores the run sd in the gate file and a later gate widens by it', async () => {
    const runs = [121, 122, 123].map((seed) => makeSyntheticBundle({ arms: ONE, blocks: 20, seed, runId: `aa-${seed}` }));
    const file = join(runs[0]!, 'gate.yaml');
    const cal = await runCli(['gate', '--calibrate', ...runs, '--gate-file', file]);
    expect(cal.code, cal.stdout + cal.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/run_variance:\n {2}completion_ms:\n {4}sd: [\d.e-]+\n {4}df: 2/);
    const gated = await runCli(['gate', runs[1]!, runs[2]!, '--gate-file', file]);
    expect(gated.stdout).toMatch(/widened by the run-variance term/);
    expect(gated.stdout).not.toMatch(/between-run variance not covered/);
    const tooFew = await runCli(['gate', '--calibrate', runs[0]!, runs[1]!, '--gate-file', file]);
    expect(tooFew.code).toBe(2);
  });

  it('--statistic p95 refuses fewer than 30 values per run (exit 3) and judges the tail with enough', async () => {
    const b = makeSyntheticBundle({ arms: ONE, blocks: 20, seed: 131 });
    const c = makeSyntheticBundle({ arms: ONE, blocks: 20, seed: 132 });
    const r = await runCli(['gate', b, c, '--statistic', 'p95']);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/too few ok values for P95: .* has 20, need ≥ 30/);
    const bad = await runCli(['gate', b, c, '--statistic', 'p99']);
    expect(bad.code).toBe(2);
  });

  it('sandbench power prints blocks per run for cross-run and interleaved designs', async () => {
    const pilot = makeSyntheticBundle({ arms: AB, blocks: 20, seed: 141, sigma: 0.1 });
    const r = await runCli(['power', pilot, '--effect', '5%']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/cross-run\s+docker:old\s+completion_ms\s+20\s+[\d.]+\s+\d+/);
    expect(r.stdout).toMatch(/interleaved\s+docker:new vs docker:old\s+completion_ms\s+20/);
    expect(r.stdout).toMatch(/method: n = n_pilot/);
  });
});
