import { cpSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { writeReport } from '../../reports/index.ts';
import { stableIds } from '../../reports/plots/render-svg.ts';
import { makeSyntheticBundle, type SyntheticArm } from './synthetic-bundle.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { kindCatalog } from '../../cli/kinds.ts';

const kinds = await kindCatalog();

const ARMS: SyntheticArm[] = [
  { backend: 'docker', medians: { ready_ms: 70, completion_ms: 800 } },
  { backend: 'staged', medians: { ready_ms: 25, completion_ms: 630 } },
];

/** Every markdown pipe table: header, separator and rows with the same column count. */
function markdownTables(markdown: string): string[][][] {
  const tables: string[][][] = [];
  let current: string[][] | null = null;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) {
      const cells = line.replace(/\\\|/g, '').split('|').slice(1, -1).map((c) => c.trim());
      (current ??= []).push(cells);
    } else if (current) {
      tables.push(current);
      current = null;
    }
  }
  if (current) tables.push(current);
  return tables;
}

describe('report.html and report.md', () => {
  const bundle = makeSyntheticBundle({ arms: ARMS, blocks: 16, seed: 201, failTrials: ['b0002-staged'], compare: [{ candidate: 'staged', control: 'docker', metric: 'completion_ms' }] });
  const analyzed = analyzeBundle(bundle, kinds);

  it('is deterministic: rendering twice gives identical bytes', async () => {
    writeReport(analyzed);
    const html = readFileSync(join(bundle, 'report.html'));
    const md = readFileSync(join(bundle, 'report.md'));
    writeReport(analyzed);
    expect(readFileSync(join(bundle, 'report.html')).equals(html)).toBe(true);
    expect(readFileSync(join(bundle, 'report.md')).equals(md)).toBe(true);
  });

  it('is self-contained: no scripts, no external resources', async () => {
    writeReport(analyzed);
    const html = readFileSync(join(bundle, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(http/i);
    expect(html.match(/<svg/g)?.length).toBeGreaterThanOrEqual(5);
  });

  it('markdown: headline table first, well-formed tables, methods in <details>, failures counted', async () => {
    writeReport(analyzed);
    const md = readFileSync(join(bundle, 'report.md'), 'utf8');
    const tables = markdownTables(md);
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const table of tables) {
      expect(table[1]!.every((c) => c === '---')).toBe(true);
      for (const row of table) expect(row).toHaveLength(table[0]!.length);
    }
    // The answer first: verdict sentences, the text headline chart, the compact per-metric table; then the details.
    expect(md.indexOf('- staged completion_ms is')).toBeLessThan(md.indexOf('```text\ncompletion_ms: P50 with 95% CI by arm, ms'));
    expect(md).toMatch(/- staged completion_ms is [\d.]+× \[[\d.]+, [\d.]+\] faster than docker; n = 15; survives Holm \(adjusted p [\d.e-]+, family of 1\)/);
    expect(md).toMatch(/_Multiplicity: the 1 rank test\(s\) of this run's comparisons are one family .*; 1 of 1 verdict\(s\) survive\._/);
    expect(tables[0]![0]).toEqual(['arm', 'ok/planned', 'P50 [95% CI]', 'P95 (n ≥ 30)', 'ratio vs control [95% CI]', 'verdict']);
    expect(md.indexOf('```text')).toBeLessThan(md.indexOf('| arm | ok/planned |'));
    expect(md.indexOf('| arm | ok/planned |')).toBeLessThan(md.indexOf('| arm | metric |'));
    expect(md.indexOf('| arm | metric |')).toBeLessThan(md.indexOf('<details>'));
    expect(md).toMatch(/<details>\n<summary>Methods, controls and environment<\/summary>/);
    // The drift family comes from the results model: every arm × metric with n ≥ 10 (2 × 2 here), as in diagnostics.csv.
    expect(md).toContain('the 4 drift test(s) with n ≥ 10 are one Holm family');
    expect(md).toMatch(/\| drift_warning \| drift_holm_p \| drift_survives_holm \|/);
    expect(md).toMatch(/\| staged \| completion_ms \| ms \| 15 \/ 16 \| 1 \|/);
    expect(md).toMatch(/\| staged \| docker \| completion_ms \|.*candidate faster \| [\d.e-]+ \| yes \| m1 \|/);
    expect(md).toMatch(/_m1: paired-round bootstrap over 15 blocks.*; seed per comparison in comparisons.csv · Holm p: comparisons of run synthetic-201: 1 rank test\(s\), Holm-adjusted/);
  });

  it("renders the kind's own table and chart from its descriptor (density capacity, real pre-redesign bundle)", () => {
    const scratch = tempDir('sandbench-report-density-');
    cpSync(resolve(import.meta.dirname, '../fixtures/bundles/density'), scratch, { recursive: true });
    writeReport(analyzeBundle(scratch, kinds, { write: false }));
    const html = readFileSync(join(scratch, 'report.html'), 'utf8');
    expect(html).toMatch(/<figure id="plot-capacity" class="plot">\n<svg/);
    expect(html).toContain('Density capacity: validated / attempted tasks by N');
    const md = readFileSync(join(scratch, 'report.md'), 'utf8');
    // Cells are arms of their own, labelled as in summary.csv (never pooled across N).
    expect(md).toMatch(/\| staged:useful-n2 \| wall_ms \| ms \| 2 \/ 2 \| 0 \|/);
    expect(md).toMatch(/\| staged \| useful \| 2 \| 2 \| 2 \| 0 \| 0 \| 4 \| 4 \|/);
    // Blocks as planned (density repeats with density.batches: 2), not the spec's generic trials (5).
    expect(md).toContain(' · 2 blocks, 0 warmup blocks · ');
    expect(md).toContain('| formal blocks (every arm once per block, shuffled) | 2 |');
  });

  it('rewrites vega ids per plot so inlined SVGs never collide', () => {
    const svg = '<svg><clipPath id="clip7"><rect/></clipPath><g clip-path="url(#clip7)"></g></svg>';
    expect(stableIds(svg, 'p1')).toBe('<svg><clipPath id="p1-0"><rect/></clipPath><g clip-path="url(#p1-0)"></g></svg>');
  });
});
