/**
 * The oracle as a control arm (issue 34, item 3): the gold solution through the whole rollout
 * pipeline scores 1.0 on every attempt of an honest backend, and a substrate that loses the last
 * write (the labelled faulty variant) gets the oracle's shortfall named as a substrate failure.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runWiring } from '../../cli/wiring.ts';
import { runSpec } from '../../harness/run/run-spec.ts';
import { parseRolloutArm } from '../../experiments/rollout/rollout-arms.ts';
import { tempDir } from '../support/temp-dirs.ts';

const dir = tempDir('sandbench-oracle-arm-');

describe('oracle control arm', () => {
  it('parses as the built-in agent on the gold path', () => {
    expect(parseRolloutArm({ backend: 'host', variant: 'oracle' })).toEqual({ cli: null, agentName: 'oracle', cpuModel: null, fault: null, oracle: true });
    expect(parseRolloutArm({ backend: 'host', variant: null }).oracle).toBe(false);
  });

  it('scores 1.0 on every attempt of an honest backend; a write-losing substrate is named a substrate failure', async () => {
    const spec = join(dir, 'oracle.yaml');
    writeFileSync(
      spec,
      'name: oracle-arm\nexperiment: rollout\narms: [{ backend: host, variant: oracle }, { backend: host, variant: oracle+drop-last-write }]\nwarmups: 0\ntrials: 1\nseed: 3\ntimeout: 120s\nresamples: 200\n' +
        'rollout:\n  tasks: swe-fixture\n  attempts: 6\n  concurrency: [2]\n  model: [{ slots: 2, base_ms: 0 }]\n  scoring_backend: host\n  wrong_fraction: 0.5\n',
    );
    const out = join(dir, 'bundle');
    const { records } = await runSpec({ specPath: spec, overrides: {}, out, requireAll: true, log: () => undefined, wiring: await runWiring() });
    const honest = records.filter((record) => record.arm.variant === 'oracle');
    const faulty = records.filter((record) => record.arm.variant === 'oracle+drop-last-write');
    expect(honest).toHaveLength(6);
    for (const record of honest) {
      expect(record.facts.attempt_path).toBe('right'); // wrong_fraction does not apply to the oracle
      expect(record.metrics.reward).toBe(1);
      expect(record.facts.substrate_failure).toBeNull();
    }
    expect(faulty).toHaveLength(6);
    for (const record of faulty) {
      expect(record.metrics.reward ?? 0).toBe(0);
      expect(String(record.facts.substrate_failure)).toMatch(/^substrate failure: the oracle \(gold solution\) got reward 0 .* on host:oracle\+drop-last-write \(scored on host\)$/);
      expect(record.notes.at(-1)).toBe(record.facts.substrate_failure);
    }
    expect(readFileSync(join(out, 'rollout-summary.csv'), 'utf8')).toContain('oracle');
  }, 300_000);
});
