/** The per-cell-run mean behind requests/s and ok/s: one value per cell run, and an interval that stays a rate. */
import { describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../harness/journal/trial-record.ts';
import { perCellMean } from '../../experiments/run-code/run-code-analysis.ts';

function request(cellRun: string, requestsPerS: number): TrialRecord {
  return { metrics: { cell_requests_per_s: requestsPerS }, facts: { cell_run: cellRun } } as unknown as TrialRecord;
}

describe('perCellMean', () => {
  it('counts each cell run once, however many requests carry its figure', () => {
    const records = [request('a', 10), request('a', 10), request('a', 10), request('b', 20)];
    expect(perCellMean(records, 'cell_requests_per_s')).toMatchObject({ n: 2, mean: 15 });
  });

  it('gives no interval from one cell run', () => {
    expect(perCellMean([request('a', 10)], 'cell_requests_per_s')).toEqual({ n: 1, mean: 10, low: null, high: null });
  });

  it('cuts the t interval at 0: a rate is never negative', () => {
    const wide = perCellMean([request('a', 1), request('b', 30)], 'cell_requests_per_s');
    expect(wide.low).toBe(0);
    expect(wide.high).toBeCloseTo(15.5 + 12.706 * (Math.sqrt(((1 - 15.5) ** 2 + (30 - 15.5) ** 2) / 1) / Math.sqrt(2)), 2);
  });

  it('leaves an interval that excludes 0 as the t interval', () => {
    const tight = perCellMean([request('a', 10), request('b', 11), request('c', 12)], 'cell_requests_per_s');
    const half = 4.303 * (1 / Math.sqrt(3));
    expect(tight.low).toBeCloseTo(11 - half, 2);
    expect(tight.high).toBeCloseTo(11 + half, 2);
  });
});
