/**
 * End to end through the real CLI on real backends (host + staged): a run produces a complete
 * bundle, analyze regenerates its CSVs byte for byte, verify catches a one-byte change, and the
 * contract headers are exact.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readJournal } from '../../harness/journal/journal.ts';
import { sandbench } from '../support/cli.ts';
import { tempDir } from '../support/temp-dirs.ts';

const HEADERS = {
  'evidence.csv': 'scenario,topic,source,cohort,variant,metric,statistic,n,value,unit,condition,limitations',
  'summary.csv': 'benchmark_id,batch,mode,backend,metric,unit,planned,failed,capability,n,p50,p95_reference,minimum,maximum,distribution,low_n,low_p50,high_n,high_p50',
  'comparisons.csv': 'batch,benchmark_id,mode,candidate,control,metric,unit,n,difference_ms,ci95_low_ms,ci95_high_ms,conclusion,confidence_method,ratio,ratio_ci95_low,ratio_ci95_high',
};
const DERIVED = ['samples.csv', 'summary.csv', 'comparisons.csv', 'evidence.csv', 'diagnostics.csv', 'comparisons-detail.csv'];

describe('sandbench run → bundle (host + staged, shell-ready)', () => {
  let bundle = '';
  let runOutput = '';
  beforeAll(async () => {
    bundle = join(tempDir('sandbench-it-'), 'bundle');
    const result = await sandbench(['run', 'experiments/specs/shell-ready.yaml', '--arms', 'host,staged', '--trials', '4', '--warmups', '1', '--out', bundle]);
    runOutput = result.stdout + result.stderr;
    expect(result.code, runOutput).toBe(0);
  }, 300_000);

  it('records every planned trial, warmups flagged, all ok', () => {
    const { records } = readJournal(join(bundle, 'journal.jsonl'));
    expect(records).toHaveLength(10);
    expect(records.filter((r) => r.warmup)).toHaveLength(2);
    expect(records.every((r) => r.outcome === 'ok')).toBe(true);
    expect(records.every((r) => r.ready_ms !== null && r.completion_ms! >= r.ready_ms!)).toBe(true);
    expect(runOutput).toContain(`bundle: ${bundle}`);
  });

  it('writes the contract headers exactly and P50 ready/completion for both arms', () => {
    for (const [file, header] of Object.entries(HEADERS)) expect(readFileSync(join(bundle, file), 'utf8').split('\n')[0]).toBe(header);
    const summary = readFileSync(join(bundle, 'summary.csv'), 'utf8');
    for (const arm of ['host', 'staged']) for (const metric of ['ready_ms', 'completion_ms']) expect(summary).toMatch(new RegExp(`,${arm},${metric},ms,4,0,measured,4,`));
  });

  it('records overrides and the environment', () => {
    const resolved = JSON.parse(readFileSync(join(bundle, 'resolved-spec.json'), 'utf8'));
    expect(resolved.overrides).toEqual({ arms: ['host', 'staged'], trials: 4, warmups: 1 });
    const environment = JSON.parse(readFileSync(join(bundle, 'environment.json'), 'utf8'));
    expect(environment.image.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(environment.backends.staged.version).toMatch(/bubblewrap/);
    expect(['kvm', 'tcg']).toContain(environment.accelerator);
  });

  it('analyze regenerates byte-identical CSVs', async () => {
    const before = Object.fromEntries(DERIVED.map((file) => [file, readFileSync(join(bundle, file), 'utf8')]));
    const result = await sandbench(['analyze', bundle]);
    expect(result.code, result.stderr).toBe(0);
    for (const file of DERIVED) expect(readFileSync(join(bundle, file), 'utf8'), file).toBe(before[file]);
    expect((await sandbench(['verify', bundle])).code).toBe(0);
  });

  it('verify fails naming samples.csv after one byte changes', async () => {
    const path = join(bundle, 'samples.csv');
    const original = readFileSync(path);
    const tampered = Buffer.from(original);
    tampered[tampered.length - 2] = tampered[tampered.length - 2] === 0x31 ? 0x32 : 0x31;
    writeFileSync(path, tampered);
    try {
      const result = await sandbench(['verify', bundle]);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toContain('samples.csv: changed');
    } finally {
      writeFileSync(path, original);
    }
  });
});
