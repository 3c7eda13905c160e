import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSyntheticBundle, syntheticEnvironment, type SyntheticArm } from './synthetic-bundle.ts';
import { runCli } from './run-cli.ts';

const ARMS: SyntheticArm[] = [
  { backend: 'docker', medians: { completion_ms: 800 } },
  { backend: 'staged', medians: { completion_ms: 630 } },
];

describe('sandbench compare', () => {
  it('refuses (exit 3) when the image digests differ, and compares with a warning when allowed', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 101 });
    const otherImage = syntheticEnvironment({ imageDigest: `sha256:${'b'.repeat(64)}` });
    const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 102, environment: otherImage, slowdown: { staged: 1.3 } });
    const refused = await runCli(['compare', baseline, candidate]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/image_digest: baseline sha256:7ac334a+ vs candidate sha256:b+/);
    // The default output sits beside the candidate bundle, never inside it (the bundle must keep verifying).
    const out = `${candidate}-vs-${basename(baseline)}`;
    expect(existsSync(out)).toBe(false);

    const allowed = await runCli(['compare', baseline, candidate, '--allow-env-mismatch']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(existsSync(join(candidate, 'comparison.csv'))).toBe(false);
    const markdown = readFileSync(join(out, 'comparison.md'), 'utf8');
    expect(markdown.split('\n').slice(0, 4).join('\n')).toMatch(/COMPARABILITY WARNING/);
    const csv = readFileSync(join(out, 'comparison.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toMatch(/^arm,metric,unit,baseline_run,candidate_run/);
    expect(csv).toHaveLength(3);
    const staged = csv.find((l) => l.startsWith('staged,'))!;
    expect(staged).toMatch(/candidate slower/);
    expect(readFileSync(join(out, 'comparison.html'), 'utf8')).toMatch(/<svg/);
  });

  it('refuses a different version of a backend the arms use, ignores one they do not use', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 8, seed: 105 });
    const newerDocker = makeSyntheticBundle({ arms: ARMS, blocks: 8, seed: 106, environment: syntheticEnvironment({ dockerVersion: 'docker 29.7.2' }) });
    const refused = await runCli(['compare', baseline, newerDocker]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/backend docker: baseline docker 20\.10\.24 vs candidate docker 29\.7\.2/);
    const stagedOnly: SyntheticArm[] = [ARMS[1]!];
    const a = makeSyntheticBundle({ arms: stagedOnly, blocks: 8, seed: 107 });
    const b = makeSyntheticBundle({ arms: stagedOnly, blocks: 8, seed: 108, environment: syntheticEnvironment({ dockerVersion: 'docker 29.7.2' }) });
    expect((await runCli(['compare', a, b])).code).toBe(0);
  });

  it('compares bundles from one environment and writes into --out', async () => {
    const baseline = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 103 });
    const candidate = makeSyntheticBundle({ arms: ARMS, blocks: 12, seed: 104 });
    const out = join(candidate, 'cmp');
    const result = await runCli(['compare', baseline, candidate, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/docker\s+completion_ms/);
    expect(existsSync(join(out, 'comparison.csv'))).toBe(true);
  });
});
