import { describe, expect, it } from 'vitest';
import { analyzeLongCsv, AnalysisInputError } from '../../../harness/analyze/index.ts';

const base = { source: 'x.csv', value: 'ms', arm: 'arm', resamples: 200, seedId: 'x' };

describe('analyzeLongCsv (the core of sandbench stats)', () => {
  it('counts empty values as missing (failed), never as zero, and compares every arm with the control', () => {
    const text = '\uFEFFarm,ms\nA,10\nA,\nA,12\nB,20\nB,21\nB,22\n';
    const r = analyzeLongCsv(text, base);
    expect(r.control).toBe('A');
    expect(r.summaries.map((s) => [s.data.arm, s.summary.n, s.summary.failed, s.summary.p50])).toEqual([
      ['A', 2, 1, 11],
      ['B', 3, 0, 21],
    ]);
    expect(r.comparisons).toHaveLength(1);
    expect(r.comparisons[0]!.design).toBe('independent'); // no --block: unpaired
    expect(r.comparisons[0]!.result!.difference).toBe(10);
  });

  it('filters rows with --where and pairs by --block', () => {
    const text = 'arm,round,metric,ms\nA,1,ready_ms,10\nB,1,ready_ms,12\nA,2,ready_ms,11\nB,2,ready_ms,13\nA,1,other,999\n';
    const r = analyzeLongCsv(text, { ...base, block: 'round', where: [['metric', 'ready_ms']] });
    expect(r.comparisons[0]!.design).toBe('paired blocks');
    expect(r.comparisons[0]!.nPairs).toBe(2);
    expect(r.summaries[0]!.summary.max).toBe(11);
  });

  it('rejects an unknown control arm, naming the arms there are', () => {
    expect(() => analyzeLongCsv('arm,ms\nA,1\nB,2\n', { ...base, control: 'C' })).toThrow(AnalysisInputError);
    expect(() => analyzeLongCsv('arm,ms\nA,1\nB,2\n', { ...base, control: 'C' })).toThrow(/--control "C".*\(arms: A, B\)/);
  });

  it('rejects a ragged row, naming its line', () => {
    expect(() => analyzeLongCsv('arm,ms\nA,1\nB,2,3\n', base)).toThrow(/x\.csv: row 3: Too many fields/);
  });
});
