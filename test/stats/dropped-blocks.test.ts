/**
 * dropped_blocks (comparisons-detail.csv) and the interleaved gate's dropped count include blocks
 * where BOTH arms failed: such a block is in neither arm's values, so counting only the blocks
 * seen in the values would miss it.
 */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { analyzedBundle } from '../../cli/kinds.ts';
import { gateInterleaved } from '../../reports/gate/gate.ts';
import { analysisFiles } from '../../harness/analyze/index.ts';
import { makeSyntheticBundle } from '../reports/synthetic-bundle.ts';

describe('dropped blocks', () => {
  const dir = makeSyntheticBundle({
    arms: [{ backend: 'host', medians: { completion_ms: 10 } }, { backend: 'staged', medians: { completion_ms: 12 } }],
    blocks: 20,
    // Block 3: both arms fail; block 7: only staged; block 11: only host.
    failTrials: ['b0003-host', 'b0003-staged', 'b0007-staged', 'b0011-host'],
  });

  it('comparisons-detail.csv counts the both-failed block (3 of 20 dropped, 17 pairs)', async () => {
    const bundle = await analyzedBundle(dir);
    const detail = Papa.parse<Record<string, string>>(analysisFiles(bundle.analysis).get('comparisons-detail.csv')!.trim(), { header: true }).data;
    const row = detail.find((r) => r.candidate === 'staged' && r.metric === 'completion_ms')!;
    expect(row.n_pairs).toBe('17');
    expect(row.dropped_blocks).toBe('3');
  });

  it('the interleaved gate says 3 of 20 blocks were dropped', async () => {
    const result = gateInterleaved(await analyzedBundle(dir), 'host', 'staged', { metrics: ['completion_ms'], maxFailedFraction: 0.5, resamples: 200 });
    expect(result.cells[0]!.baseline.n).toEqual([17]);
    expect(result.warnings).toContain('completion_ms: 3 of 20 block(s) dropped (an arm had no ok value in them)');
  });
});
