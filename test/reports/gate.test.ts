import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benjaminiHochberg } from '../../harness/stats/multiplicity.ts';
import { parseThreshold } from '../../reports/gate/threshold.ts';
import { makeSyntheticBundle, syntheticEnvironment, type SyntheticArm } from './synthetic-bundle.ts';
import { runCli } from './run-cli.ts';

const ARMS: SyntheticArm[] = [
  { backend: 'docker', medians: { ready_ms: 70, completion_ms: 800 } },
  { backend: 'staged', medians: { ready_ms: 25, completion_ms: 630 } },
];

describe('sandbench gate', () => {
  it('never reports a regression for two runs of the same distribution (exit 0 or 2)', async () => {
    for (const [s1, s2] of [[11, 12], [13, 14], [15, 16]] as const) {
      const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: s1 });
      const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: s2 });
      const result = await runCli(['gate', baseline, candidate, '--threshold', '5%']);
      expect([0, 2], result.stdout + result.stderr).toContain(result.code);
    }
  });

  it('exits 1 when the candidate is 20% slower than the baseline', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 21 });
    const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 22, slowdown: { staged: 1.2 } });
    const result = await runCli(['gate', baseline, candidate, '--metric', 'completion_ms', '--threshold', '5%']);
    expect(result.code, result.stdout).toBe(1);
    expect(result.stdout).toMatch(/staged\s+completion_ms.*regression/);
    expect(result.stdout).not.toMatch(/docker\s+completion_ms.*regression/);
  });

  it('exits 3 when trials were removed from the journal (never passes on missing data)', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 31 });
    const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 32 });
    const journal = join(candidate, 'journal.jsonl');
    const lines = readFileSync(journal, 'utf8').trimEnd().split('\n');
    writeFileSync(journal, `${lines.filter((l) => !l.includes('"trial_id":"b0005-staged"') && !l.includes('"trial_id":"b0006-docker"')).join('\n')}\n`);
    const result = await runCli(['gate', baseline, candidate]);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/2 planned formal trial\(s\) have no journal line/);
  });

  it('exits 3 when failed trials exceed the allowed fraction, and accepts them under a larger fraction', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 41 });
    const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 42, failTrials: ['b0001-staged', 'b0002-staged', 'b0003-staged'] });
    const strict = await runCli(['gate', baseline, candidate, '--max-failed-fraction', '0.05']);
    expect(strict.code).toBe(3);
    expect(strict.stdout).toMatch(/arm staged has 3 of 20 formal trials failed/);
    const lenient = await runCli(['gate', baseline, candidate, '--max-failed-fraction', '0.2']);
    expect([0, 2]).toContain(lenient.code);
  });

  it('exits 3 on unmatched arms and on a different environment', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 51 });
    const onlyDocker = makeSyntheticBundle({ arms: [ARMS[0]!], blocks: 12, seed: 52 });
    const unmatched = await runCli(['gate', baseline, onlyDocker]);
    expect(unmatched.code).toBe(3);
    expect(unmatched.stdout).toMatch(/unmatched arm: staged is only in the baseline/);
    const otherKernel = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 53, environment: syntheticEnvironment({ kernel: '6.12.0-other' }) });
    const env = await runCli(['gate', baseline, otherKernel]);
    expect(env.code).toBe(3);
    expect(env.stdout).toMatch(/environment differs on kernel: baseline 6\.1\.0-test vs candidate 6\.12\.0-other/);
  });

  it('--aa gates one bundle against itself in halves: exit 0 or 2', async () => {
    const bundle = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 61 });
    const result = await runCli(['gate', '--aa', bundle]);
    expect([0, 2]).toContain(result.code);
    expect(result.stdout).toMatch(/10 \/ 10/);
  });

  it('per-metric thresholds from a gate file', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 71 });
    const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 20, seed: 72, slowdown: { staged: 1.2 } });
    const file = join(candidate, 'gate.yaml');
    writeFileSync(file, 'metrics:\n  completion_ms: 40%\n');
    const result = await runCli(['gate', baseline, candidate, '--gate-file', file]);
    expect(result.code, result.stdout).toBe(0);
  });
});

describe('gate helpers', () => {
  it('Benjamini–Hochberg matches R p.adjust(method = "BH")', () => {
    // R: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "BH") → 0.025 0.050 0.050 0.025 0.500
    const q = benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.5]);
    expect(q.map((v) => Number(v.toFixed(6)))).toEqual([0.025, 0.05, 0.05, 0.025, 0.5]);
  });

  it('parses thresholds and refuses ambiguous ones', () => {
    expect(parseThreshold('5%', 'x')).toBeCloseTo(0.05);
    expect(parseThreshold('0.1', 'x')).toBeCloseTo(0.1);
    expect(() => parseThreshold('5', 'x')).toThrow(/percentage/);
    expect(() => parseThreshold('-3%', 'x')).toThrow();
  });
});
