import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyzeBundle } from '../../harness/analyze/index.ts';
import { writeReport } from '../../reports/index.ts';
import { stableIds } from '../../reports/plots/render-svg.ts';
import { makeSyntheticBundle, type SyntheticArm } from './synthetic-bundle.ts';
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
  analyzeBundle(bundle, kinds);

  it('is deterministic: rendering twice gives identical bytes', async () => {
    writeReport(bundle);
    const html = readFileSync(join(bundle, 'report.html'));
    const md = readFileSync(join(bundle, 'report.md'));
    writeReport(bundle);
    expect(readFileSync(join(bundle, 'report.html')).equals(html)).toBe(true);
    expect(readFileSync(join(bundle, 'report.md')).equals(md)).toBe(true);
  });

  it('is self-contained: no scripts, no external resources', async () => {
    writeReport(bundle);
    const html = readFileSync(join(bundle, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(http/i);
    expect(html.match(/<svg/g)?.length).toBeGreaterThanOrEqual(5);
  });

  it('markdown: headline table first, well-formed tables, methods in <details>, failures counted', async () => {
    writeReport(bundle);
    const md = readFileSync(join(bundle, 'report.md'), 'utf8');
    const tables = markdownTables(md);
    expect(tables.length).toBeGreaterThanOrEqual(4);
    for (const table of tables) {
      expect(table[1]!.every((c) => c === '---')).toBe(true);
      for (const row of table) expect(row).toHaveLength(table[0]!.length);
    }
    expect(tables[0]![0]).toEqual(expect.arrayContaining(['arm', 'metric', 'n ok / planned', 'failed', 'P50 [95% CI]']));
    expect(md.indexOf('| arm | metric |')).toBeLessThan(md.indexOf('<details>'));
    expect(md).toMatch(/<details>\n<summary>Methods, controls and environment<\/summary>/);
    expect(md).toMatch(/\| staged \| completion_ms \| ms \| 15 \/ 16 \| 1 \|/);
    expect(md).toMatch(/\| staged \| docker \| completion_ms \|.*candidate faster/);
  });

  it('adds the density capacity chart and table when density-summary.csv exists', () => {
    const dir = makeSyntheticBundle({ arms: ARMS, blocks: 6, seed: 202 });
    analyzeBundle(dir, kinds);
    writeFileSync(
      join(dir, 'density-summary.csv'),
      [
        'backend,workload,concurrency,planned_batches,full_valid_no_oom_batches,failed_or_unknown_or_oom_batches,oom_batches,attempted_tasks,validated_completed_tasks',
        'staged,useful,16,5,5,0,0,80,80',
        'staged,useful,32,5,3,2,2,160,138',
        'docker,useful,16,5,5,0,0,80,80',
        'docker,useful,32,5,0,5,5,160,90',
      ].join('\n') + '\n',
    );
    writeReport(dir);
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toMatch(/<figure id="plot-capacity" class="plot">\n<svg/);
    expect(html).toContain('Density capacity: validated / attempted tasks by N');
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toMatch(/\| staged \| useful \| 32 \| 5 \| 3 \|/);
  });

  it('rewrites vega ids per plot so inlined SVGs never collide', () => {
    const svg = '<svg><clipPath id="clip7"><rect/></clipPath><g clip-path="url(#clip7)"></g></svg>';
    expect(stableIds(svg, 'p1')).toBe('<svg><clipPath id="p1-0"><rect/></clipPath><g clip-path="url(#p1-0)"></g></svg>');
  });
});
