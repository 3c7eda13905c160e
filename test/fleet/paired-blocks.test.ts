/**
 * Fleet combined estimate: a block holding several values of one arm on a host (kinds with several
 * trials per arm and block) enters the stratified bootstrap as the median of all of them, not as
 * whichever value was recorded last; the combined row's note says so.
 */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { analyzeFleet, FLEET_FILES, HOST_FACT, pairedBlocks } from '../../harness/fleet/fleet-analysis.ts';
import type { ArmMetricData } from '../../harness/analyze/arm-metric.ts';
import { plan, record, resolved } from './fleet-fixtures.ts';

const data = (arm: string, values: [string, number][]): ArmMetricData => ({
  arm, metric: 'ready_ms', unit: 'ms', planned: values.length, failed: 0, failureCategories: {}, okWithoutMetric: 0, limitations: [],
  observations: values.map(([block, value], position) => ({ block, value, position })),
});

describe('fleet pairedBlocks', () => {
  it('merges a block with several values into their median, pairs only shared blocks, in block order', () => {
    const candidate = data('staged', [['2', 30], ['0', 10], ['0', 14], ['0', 100], ['1', 20]]);
    const control = data('host', [['1', 2], ['0', 1], ['2', 3], ['3', 4], ['2', 5]]);
    expect(pairedBlocks(candidate, control)).toEqual({ candidate: [14, 20, 30], control: [1, 2, 4], merged: 2 });
  });

  it('unique blocks pass through unchanged (merged 0)', () => {
    expect(pairedBlocks(data('a', [['0', 5], ['1', 6]]), data('b', [['1', 1], ['0', 2]]))).toEqual({ candidate: [5, 6], control: [2, 1], merged: 0 });
  });

  it('the combined row uses every value of a block, and says so', () => {
    const full = plan({ trials: 8, warmups: 0 });
    // Two journal records per (arm, block): staged 10 and 30 (median 20, last 30), host 10 and 10.
    const records = full.trials.flatMap((t) => [
      record({ ...t, trial_id: `${t.trial_id}-x` }, 'r', 10, { [HOST_FACT]: 'node-a' }),
      record({ ...t, trial_id: `${t.trial_id}-y`, position: t.position + 1000 }, 'r', t.arm.backend === 'staged' ? 30 : 10, { [HOST_FACT]: 'node-a' }),
    ]);
    const rows = Papa.parse<Record<string, string>>(analyzeFleet({ resolved: resolved('fleet-merge'), records }).get(FLEET_FILES.comparisons)!.trim(), { header: true }).data;
    const combined = rows.find((r) => r.scope === 'combined')!;
    expect(Number(combined.difference_ms)).toBe(10);
    expect(combined.n).toBe('8');
    expect(combined.note).toContain('blocks holding several values of an arm enter as the median of those values: node-a (8)');
  });
});
