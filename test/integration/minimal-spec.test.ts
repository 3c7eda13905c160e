/**
 * Issue 35 (2) acceptance: `name: x / experiment: shell-ready / arms: [host, staged]` runs on the
 * real backends with its defaults, prints the random seed at run start and records every default
 * in resolved-spec.json (the seed recorded is the seed the plan used).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

describe('a three-line spec runs with recorded defaults (host + staged)', () => {
  it('runs 3 warmups + 30 trials per arm and records seed, trials, warmups, timeout', async () => {
    const dir = tempDir('sandbench-minimal-spec-');
    const specFile = join(dir, 'x.yaml');
    writeFileSync(specFile, 'name: x\nexperiment: shell-ready\narms: [host, staged]\n');
    const bundle = join(dir, 'bundle');
    const result = await sandbench(['run', specFile, '--out', bundle]);
    expect(result.code, result.stderr).toBe(0);
    const resolved = JSON.parse(readFileSync(join(bundle, 'resolved-spec.json'), 'utf8'));
    expect(resolved.defaulted).toEqual(['warmups', 'trials', 'seed', 'timeout']);
    expect(resolved.spec).toMatchObject({ warmups: 3, trials: 30, timeout: 60_000, arms: [{ backend: 'host' }, { backend: 'staged' }] });
    const seed = resolved.spec.seed as number;
    expect(result.stderr).toContain(`seed ${seed} (random: repeat this schedule with --seed ${seed})`);
    expect(JSON.parse(readFileSync(join(bundle, 'plan.json'), 'utf8')).seed).toBe(seed);
    const { records } = readJournal(join(bundle, 'journal.jsonl'));
    expect(records.filter((r) => !r.warmup)).toHaveLength(60);
    expect(records.filter((r) => r.warmup)).toHaveLength(6);
  }, 300_000);
});
