/** Issue 13 (7): the comparisons of one run are one family; Holm-adjusted rank-test p-values say which verdicts survive. */
import { describe, expect, it } from 'vitest';
import Papa from 'papaparse';
import { analyzeLongCsv } from '../../../harness/analyze/index.ts';

function csv(shifts: Record<string, number>, blocks = 12): string {
  const lines = ['arm,block,value'];
  for (let b = 0; b < blocks; b++) {
    lines.push(`ctl,${b},${100 + ((b * 7) % 5)}`);
    for (const [arm, shift] of Object.entries(shifts)) lines.push(`${arm},${b},${100 + ((b * 7) % 5) + shift + ((b * 3) % 4) * 0.5}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('comparison family (Holm)', () => {
  it('records rank p, family size and Holm p; a verdict survives only if its Holm p < 0.05', () => {
    const result = analyzeLongCsv(csv({ big: 30, none: 0 }), { source: 'fam.csv', value: 'value', arm: 'arm', block: 'block', control: 'ctl', where: [], resamples: 500, seedId: 'fam' });
    const detail = Papa.parse<string[]>(result.files.get('comparisons-detail.csv')!.trimEnd()).data;
    const header = detail[0]!;
    const col = (name: string) => header.indexOf(name);
    expect(header.slice(-5)).toEqual(['rank_test_p', 'family', 'family_size', 'holm_p', 'verdict_survives_holm']);
    const rows = detail.slice(1);
    const big = rows.find((r) => r[3] === 'big')!;
    const none = rows.find((r) => r[3] === 'none')!;
    expect(big[col('family_size')]).toBe('2');
    // Holm: the smaller of two p-values is multiplied by 2.
    const p = Number(big[col('rank_test_p')]);
    expect(p).toBeLessThan(0.01);
    expect(Number(big[col('holm_p')])).toBeCloseTo(2 * p, 12);
    expect(big[col('verdict_survives_holm')]).toBe('true');
    // No verdict → nothing to survive (empty cell), though it is still a member of the family.
    expect(none[col('verdict_survives_holm')]).toBe('');
    expect(Number(none[col('holm_p')])).toBeGreaterThanOrEqual(Number(none[col('rank_test_p')]));
  });
});

describe('dropped blocks', () => {
  it('counts blocks where both arms failed, not only those where one did', () => {
    // 10 blocks; block 3: candidate missing; block 7: both missing (empty values = failed rows).
    const lines = ['arm,block,value'];
    for (let b = 0; b < 10; b++) {
      lines.push(`ctl,${b},${b === 7 ? '' : 100 + b}`);
      lines.push(`cand,${b},${b === 3 || b === 7 ? '' : 120 + b}`);
    }
    const result = analyzeLongCsv(`${lines.join('\n')}\n`, { source: 'drop.csv', value: 'value', arm: 'arm', block: 'block', control: 'ctl', where: [], resamples: 200, seedId: 'drop' });
    const detail = Papa.parse<string[]>(result.files.get('comparisons-detail.csv')!.trimEnd()).data;
    const row = detail[1]!;
    expect(row[detail[0]!.indexOf('n_pairs')]).toBe('8');
    expect(row[detail[0]!.indexOf('dropped_blocks')]).toBe('2');
  });
});

describe('drift family (Holm)', () => {
  it('diagnostics.csv Holm-adjusts the drift tests of one run and says whether each flag survives', () => {
    const lines = ['arm,block,value'];
    for (let b = 0; b < 20; b++) {
      lines.push(`ctl,${b},${100 + ((b * 7) % 5)}`);
      lines.push(`up,${b},${100 + b * 2}`);
    }
    const result = analyzeLongCsv(`${lines.join('\n')}\n`, { source: 'drift.csv', value: 'value', arm: 'arm', block: 'block', control: 'ctl', where: [], resamples: 100, seedId: 'drift' });
    const rows = Papa.parse<string[]>(result.files.get('diagnostics.csv')!.trimEnd()).data;
    const h = rows[0]!;
    const up = rows.find((r) => r[h.indexOf('backend')] === 'up')!;
    expect(up[h.indexOf('drift_family_size')]).toBe('2');
    const p = Number(up[h.indexOf('drift_p')]);
    expect(Number(up[h.indexOf('drift_holm_p')])).toBeCloseTo(Math.min(1, 2 * p), 12);
    expect(up[h.indexOf('drift_warning')]).toBe('true');
    expect(up[h.indexOf('drift_survives_holm')]).toBe('true');
  });
});
